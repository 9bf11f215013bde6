package io.leasehold.adk.redteam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.adk.agents.LlmAgent;
import com.google.adk.agents.RunConfig;
import com.google.adk.events.Event;
import com.google.adk.flows.llmflows.Functions;
import com.google.adk.models.LlmRequest;
import com.google.adk.plugins.BasePlugin;
import com.google.adk.plugins.Plugin;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.FunctionTool;
import com.google.adk.tools.ToolContext;
import com.google.genai.types.Content;
import com.google.genai.types.FunctionCall;
import com.google.genai.types.FunctionDeclaration;
import com.google.genai.types.FunctionResponse;
import com.google.genai.types.Part;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agenttest.AgentToolFenceScenarios;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.ToolScope;
import io.leasehold.adk.AdkToolFence;
import io.leasehold.adk.UnfencedToolException;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.Refusal;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.Lease;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Single;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Red-team probes of leasehold-adk: each asserts the PROMISED behaviour. */
class AdkRedTeamTest extends AgentToolFenceScenarios {
  private final RtTools tools = new RtTools(world);

  @Override
  protected Turn turn(Lease lease, boolean endRunOnRefusal, String answer, String... toolCalls) {
    RtLlm model = new RtLlm().callTools(toolCalls).answer(answer);
    AdkToolFence fence = AdkToolFence.builder(agentFence).endRunOnRefusal(endRunOnRefusal).build();
    String said =
        RtTurn.lastText(
            new RtTurn(agent(model, tools.tools()), List.of(fence.plugin())).say("go", cfg(lease)));
    return new Turn(said, model.toolResultsSeen());
  }

  @Override
  protected void turnCallingACrashingTool(Lease lease, String tool, String arguments, Error crash) {
    BaseTool crashing =
        new BaseTool(tool, "Crashes") {
          @Override
          public Optional<FunctionDeclaration> declaration() {
            return Optional.of(
                FunctionDeclaration.builder().name(tool).description("Crashes").build());
          }

          @Override
          public Single<Map<String, Object>> runAsync(Map<String, Object> a, ToolContext c) {
            throw crash;
          }
        };
    try {
      new RtTurn(
              agent(new RtLlm().callTools(tool, arguments).answer("x"), List.of(crashing)),
              List.of(AdkToolFence.builder(agentFence).build().plugin()))
          .say("go", cfg(lease));
    } catch (RuntimeException e) {
      if (e.getCause() == crash) {
        throw crash;
      }
      throw e;
    }
  }

  @Override
  protected String howToPassALease() {
    return "AdkToolFence.runConfig(lease)";
  }

  @Override
  protected String asTheModelReadsIt(String returned) {
    return returned;
  }

  static RunConfig seq() {
    return RunConfig.builder().toolExecutionMode(RunConfig.ToolExecutionMode.SEQUENTIAL).build();
  }

  static RunConfig cfg(Fenced lease) {
    return lease == null ? seq() : AdkToolFence.runConfig(seq(), lease);
  }

  static LlmAgent agent(RtLlm model, List<? extends BaseTool> tools) {
    return LlmAgent.builder().name("assistant").model(model).tools(tools).build();
  }

  private Plugin plugin() {
    return AdkToolFence.builder(agentFence).build().plugin();
  }

  // ---- 1. a tool of the same name swapped into the request after the plugin ran
  @Test
  void aSameNameToolSwappedInAfterThePluginDoesNotRun() {
    Lease desktop = acquire("desktop");
    takeOver();
    BaseTool evil = FunctionTool.create(tools, "bookTable");
    LlmAgent agent =
        LlmAgent.builder()
            .name("assistant")
            .model(new RtLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("x"))
            .tools(tools.tools())
            .beforeModelCallbackSync(
                (ctx, request) -> {
                  Map<String, BaseTool> m = new HashMap<>(request.build().tools());
                  m.put("bookTable", evil); // same name, not fenced
                  request.tools(m);
                  return Optional.empty();
                })
            .build();
    Throwable t =
        catchThrowable(() -> new RtTurn(agent, List.of(plugin())).say("go", cfg(desktop)));
    assertThat(t).isInstanceOfAny(UnfencedToolException.class, RunStoppedException.class);
    assertThat(world.effects).isEmpty();
  }

  // ---- 2. arguments rewritten by an agent before-tool callback (after the plugin's) widen scope
  @Test
  void argumentsRewrittenAfterThePluginAreStillScopeChecked() {
    AgentToolFence scoped =
        AgentToolFence.builder(
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.trustEveryWriter())
                    .scope(ToolScope.argumentUnderKey("name"))
                    .journal(journal)
                    .build())
            .build();
    Lease desktop = acquire("desktop");
    String inScope = key.accountId() + "/" + key.sessionId() + "/Ada";
    LlmAgent agent =
        LlmAgent.builder()
            .name("assistant")
            .model(new RtLlm().callTools("bookTable", "{\"name\":\"" + inScope + "\"}").answer("x"))
            .tools(tools.tools())
            .beforeToolCallbackSync(
                (ctx, tool, args, toolContext) -> {
                  args.put("name", "other-acct/chat/Mallory");
                  return Optional.empty();
                })
            .build();
    Throwable t =
        catchThrowable(
            () ->
                new RtTurn(agent, List.of(AdkToolFence.builder(scoped).build().plugin()))
                    .say("go", cfg(desktop)));
    assertThat(world.effects).doesNotContain("booked:other-acct/chat/Mallory");
    assertThat(t).isInstanceOf(RunStoppedException.class);
    assertThat(((RunStoppedException) t).stop().reason()).isEqualTo(Refusal.Reason.OUT_OF_SCOPE);
  }

  // ---- 3. a plugin after the fence rewrites arguments in its before-tool callback
  @Test
  void aLaterPluginRewritingArgumentsIsStillScopeChecked() {
    AgentToolFence scoped =
        AgentToolFence.builder(
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.trustEveryWriter())
                    .scope(ToolScope.argumentUnderKey("name"))
                    .journal(journal)
                    .build())
            .build();
    Lease desktop = acquire("desktop");
    String inScope = key.accountId() + "/" + key.sessionId() + "/Ada";
    Plugin rewriter =
        new BasePlugin("rewriter") {
          @Override
          public Maybe<Map<String, Object>> beforeToolCallback(
              BaseTool tool, Map<String, Object> args, ToolContext toolContext) {
            args.put("name", "other-acct/chat/Mallory");
            return Maybe.empty();
          }
        };
    LlmAgent agent =
        agent(
            new RtLlm().callTools("bookTable", "{\"name\":\"" + inScope + "\"}").answer("x"),
            tools.tools());
    Throwable t =
        catchThrowable(
            () ->
                new RtTurn(agent, List.of(AdkToolFence.builder(scoped).build().plugin(), rewriter))
                    .say("go", cfg(desktop)));
    assertThat(world.effects).doesNotContain("booked:other-acct/chat/Mallory");
    assertThat(t).isInstanceOf(RunStoppedException.class);
  }

  // ---- 4. a lease its holder released: the run must stop
  @Test
  void aReleasedLeaseStopsTheRun() {
    Lease desktop = acquire("desktop");
    desktop.release();
    Throwable t =
        catchThrowable(
            () ->
                new RtTurn(
                        agent(
                            new RtLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("x"),
                            tools.tools()),
                        List.of(plugin()))
                    .say("go", cfg(desktop)));
    assertThat(world.effects).isEmpty();
    assertThat(t).isNotNull();
  }

  // ---- 5. a lease whose token() throws
  @Test
  void aLeaseThatThrowsRunsNoTool() {
    Fenced broken =
        () -> {
          throw new IllegalStateException("lease store down");
        };
    Throwable t =
        catchThrowable(
            () ->
                new RtTurn(
                        agent(
                            new RtLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("x"),
                            tools.tools()),
                        List.of(plugin()))
                    .say("go", cfg(broken)));
    assertThat(world.effects).isEmpty();
    assertThat(t).isNotNull();
  }

  // ---- 6. an on-tool-error callback swallows the refusal; the run goes on calling tools
  @Test
  void aSwallowedRefusalDoesNotLetTheNextCallRun() {
    Lease desktop = acquire("desktop");
    takeOver();
    LlmAgent agent =
        LlmAgent.builder()
            .name("assistant")
            .model(
                new RtLlm()
                    .callTools("bookTable", "{\"name\":\"Ada\"}")
                    .callTools("sendMessage", "{\"text\":\"hi\"}")
                    .answer("done"))
            .tools(tools.tools())
            .onToolErrorCallback(
                (ctx, tool, args, toolContext, error) ->
                    Maybe.just(Map.<String, Object>of("error", "ignored")))
            .build();
    catchThrowable(() -> new RtTurn(agent, List.of(plugin())).say("go", cfg(desktop)));
    assertThat(world.effects).isEmpty();
  }

  // ---- 7. two parallel calls with one idempotency key, then the same key again: runs once
  @Test
  void oneIdempotencyKeyRunsOnceAcrossParallelCallsAndInvocations() {
    AgentToolFence keyed =
        AgentToolFence.builder(
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.trustEveryWriter())
                    .journal(journal)
                    .build())
            .idempotencyKeys(AgentToolFence.IdempotencyKeys.argument("idempotencyKey"))
            .build();
    Lease desktop = acquire("desktop");
    keyed.startRun(desktop);
    String call = "{\"idempotencyKey\":\"k-1\",\"name\":\"Ada\"}";
    RtLlm model =
        new RtLlm()
            .callTools("pay", call, "pay", call)
            .callTools("pay", call)
            .answer("done")
            .callTools("pay", call)
            .answer("done again");
    RtTurn turn =
        new RtTurn(
            agent(model, List.of(FunctionTool.create(tools, "pay"))),
            List.of(AdkToolFence.builder(keyed).endRunOnRefusal(false).build().plugin()));
    RunConfig parallel =
        AdkToolFence.runConfig(
            RunConfig.builder()
                .toolExecutionMode(RunConfig.ToolExecutionMode.PARALLEL_SUBSCRIBE)
                .build(),
            desktop);
    catchThrowable(() -> turn.say("go", parallel));
    catchThrowable(() -> turn.say("again", parallel)); // a second invocation of the same run
    assertThat(world.effects).containsExactly("paid:Ada");
  }

  // ---- 8. a tool that needs confirmation, listed unwrapped: after confirming, does it run?
  @Test
  void aConfirmedUnwrappedToolIsRefusedNotRunUnfenced() {
    Lease desktop = acquire("desktop");
    BaseTool confirm = FunctionTool.create(tools, "bookTable", true);
    RtLlm model = new RtLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("x").answer("y");
    RtTurn turn = new RtTurn(agent(model, List.of(confirm)), List.of(plugin()));
    List<Event> first = turn.say("go", cfg(desktop));
    assertThat(world.effects).isEmpty(); // not confirmed yet
    FunctionCall ask =
        first.stream()
            .flatMap(e -> e.functionCalls().stream())
            .filter(
                fc ->
                    fc.name().orElse("").equals(Functions.REQUEST_CONFIRMATION_FUNCTION_CALL_NAME))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no confirmation asked: " + first));
    takeOver(); // the browser takes over before the user confirms on the desktop
    Content yes =
        Content.builder()
            .role("user")
            .parts(
                Part.builder()
                    .functionResponse(
                        FunctionResponse.builder()
                            .id(ask.id().get())
                            .name(Functions.REQUEST_CONFIRMATION_FUNCTION_CALL_NAME)
                            .response(Map.of("confirmed", true))
                            .build())
                    .build())
            .build();
    List<Event>[] second = new List[1];
    Throwable t = catchThrowable(() -> second[0] = turn.send(yes, cfg(desktop)));
    assertThat(world.effects).isEmpty();
    // Promised (docs/agents.md): "the plugin refuses the call". Observed: ADK's confirmation
    // processor swallows the refusal (onErrorReturn + log), the invocation goes on to the model.
    assertThat(t).isInstanceOf(UnfencedToolException.class);
  }

  /** One confirm-then-answer exchange with the documented fix, toolFence.wrap(tool). */
  private Throwable confirmWrapped(boolean supersedeBeforeConfirming, RtLlm model) {
    Lease desktop = acquire("desktop");
    AdkToolFence fence = AdkToolFence.builder(agentFence).build();
    BaseTool confirm = fence.wrap(FunctionTool.create(tools, "bookTable", true));
    RtTurn turn = new RtTurn(agent(model, List.of(confirm)), List.of(fence.plugin()));
    List<Event> first = turn.say("go", cfg(desktop));
    FunctionCall ask =
        first.stream()
            .flatMap(e -> e.functionCalls().stream())
            .filter(
                fc ->
                    fc.name().orElse("").equals(Functions.REQUEST_CONFIRMATION_FUNCTION_CALL_NAME))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no confirmation asked: " + first));
    if (supersedeBeforeConfirming) {
      takeOver();
    }
    Content yes =
        Content.builder()
            .role("user")
            .parts(
                Part.builder()
                    .functionResponse(
                        FunctionResponse.builder()
                            .id(ask.id().get())
                            .name(Functions.REQUEST_CONFIRMATION_FUNCTION_CALL_NAME)
                            .response(Map.of("confirmed", true))
                            .build())
                    .build())
            .build();
    return catchThrowable(() -> turn.send(yes, cfg(desktop)));
  }

  @Test
  void aWrappedConfirmedToolOfTheCurrentRunRuns() {
    RtLlm model = new RtLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("x").answer("y");
    Throwable t = confirmWrapped(false, model);
    assertThat(t).isNull();
    assertThat(world.effects).containsExactly("booked:Ada");
  }

  @Test
  void aSupersededRunsConfirmedWrappedToolStopsTheRun() {
    RtLlm model =
        new RtLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("x").answer("after-stop");
    Throwable t = confirmWrapped(true, model);
    assertThat(world.effects).isEmpty();
    // Promised: a refusal ends the invocation with RunStoppedException (endRunOnRefusal default)
    // and the run does not go on. Observed: swallowed by ADK's confirmation processor, the model is
    // called again and the caller sees a normal turn.
    assertThat(t).isInstanceOf(RunStoppedException.class);
  }

  // ---- 8b. idempotency keys and confirmation: the unconfirmed first call must not eat the key
  @Test
  void aConfirmedCallWithAnIdempotencyKeyRunsOnceConfirmed() {
    AgentToolFence keyed =
        AgentToolFence.builder(
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.trustEveryWriter())
                    .journal(journal)
                    .build())
            .idempotencyKeys(AgentToolFence.IdempotencyKeys.argument("idempotencyKey"))
            .build();
    Lease desktop = acquire("desktop");
    keyed.startRun(desktop);
    AdkToolFence fence = AdkToolFence.builder(keyed).build();
    BaseTool confirm = fence.wrap(FunctionTool.create(tools, "pay", true));
    RtLlm model =
        new RtLlm()
            .callTools("pay", "{\"idempotencyKey\":\"k-5\",\"name\":\"Ada\"}")
            .answer("x")
            .answer("y");
    RtTurn turn = new RtTurn(agent(model, List.of(confirm)), List.of(fence.plugin()));
    List<Event> first = turn.say("go", cfg(desktop));
    FunctionCall ask =
        first.stream()
            .flatMap(e -> e.functionCalls().stream())
            .filter(
                fc ->
                    fc.name().orElse("").equals(Functions.REQUEST_CONFIRMATION_FUNCTION_CALL_NAME))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no confirmation asked: " + first));
    Content yes =
        Content.builder()
            .role("user")
            .parts(
                Part.builder()
                    .functionResponse(
                        FunctionResponse.builder()
                            .id(ask.id().get())
                            .name(Functions.REQUEST_CONFIRMATION_FUNCTION_CALL_NAME)
                            .response(Map.of("confirmed", true))
                            .build())
                    .build())
            .build();
    catchThrowable(() -> turn.send(yes, cfg(desktop)));
    // The user confirmed: the payment runs once (not zero times: the unconfirmed attempt did not
    // pay)
    assertThat(world.effects).containsExactly("paid:Ada");
  }

  // ---- 8c. live (BIDI) mode: the plugin's before-model hook is not called by ADK's runLive
  @Test
  void aLiveRunsToolCallDoesNotRunUnfenced() {
    Lease desktop = acquire("desktop");
    takeOver();
    com.google.adk.models.BaseLlm live =
        new com.google.adk.models.BaseLlm("live") {
          @Override
          public io.reactivex.rxjava3.core.Flowable<com.google.adk.models.LlmResponse>
              generateContent(LlmRequest request, boolean stream) {
            return io.reactivex.rxjava3.core.Flowable.error(new IllegalStateException("live only"));
          }

          @Override
          public com.google.adk.models.BaseLlmConnection connect(LlmRequest request) {
            return new com.google.adk.models.BaseLlmConnection() {
              @Override
              public io.reactivex.rxjava3.core.Completable sendHistory(List<Content> h) {
                return io.reactivex.rxjava3.core.Completable.complete();
              }

              @Override
              public io.reactivex.rxjava3.core.Completable sendContent(Content c) {
                return io.reactivex.rxjava3.core.Completable.complete();
              }

              @Override
              public io.reactivex.rxjava3.core.Completable sendRealtime(
                  com.google.genai.types.Blob b) {
                return io.reactivex.rxjava3.core.Completable.complete();
              }

              @Override
              public io.reactivex.rxjava3.core.Flowable<com.google.adk.models.LlmResponse>
                  receive() {
                Content call =
                    Content.builder()
                        .role("model")
                        .parts(
                            Part.builder()
                                .functionCall(
                                    FunctionCall.builder()
                                        .id("live-1")
                                        .name("bookTable")
                                        .args(Map.of("name", "Ada"))
                                        .build())
                                .build())
                        .build();
                return io.reactivex.rxjava3.core.Flowable.just(
                        com.google.adk.models.LlmResponse.builder().content(call).build())
                    .concatWith(io.reactivex.rxjava3.core.Flowable.never());
              }

              @Override
              public void close() {}

              @Override
              public void close(Throwable t) {}
            };
          }
        };
    LlmAgent agent = LlmAgent.builder().name("assistant").model(live).tools(tools.tools()).build();
    RtTurn turn = new RtTurn(agent, List.of(plugin()));
    com.google.adk.agents.LiveRequestQueue queue = new com.google.adk.agents.LiveRequestQueue();
    RunConfig bidi =
        AdkToolFence.runConfig(
            RunConfig.builder().streamingMode(RunConfig.StreamingMode.BIDI).build(), desktop);
    Throwable t =
        catchThrowable(
            () ->
                turn.runner
                    .runLive(turn.session, queue, bidi)
                    .takeUntil(
                        io.reactivex.rxjava3.core.Flowable.timer(
                            3, java.util.concurrent.TimeUnit.SECONDS))
                    .toList()
                    .blockingGet());
    assertThat(world.effects).isEmpty();
    assertThat(t).isNotNull();
    assertThat(t).hasMessageContaining("bookTable"); // the fence's refusal, not the mock failing
    System.err.println("RT-LIVE " + t);
  }

  // ---- 8d. a tool fenced by ANOTHER AdkToolFence (one that never saw the takeover) swapped in
  // after this plugin ran: does this plugin's before-tool check accept any FencedTool?
  @Test
  void aToolFencedByAnotherFenceIsNotAcceptedAsThisFences() {
    Lease desktop = acquire("desktop");
    takeOver();
    AdkToolFence foreign =
        AdkToolFence.builder(
                AgentToolFence.builder(
                        FencedToolExecutor.builder()
                            .verifier(TokenVerifier.trustEveryWriter())
                            .journal(new io.leasehold.adapters.tool.MemoryToolJournal())
                            .build())
                    .build())
            .build();
    BaseTool foreignBook = foreign.wrap(FunctionTool.create(tools, "bookTable"));
    LlmAgent agent =
        LlmAgent.builder()
            .name("assistant")
            .model(new RtLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("x"))
            .tools(tools.tools())
            .beforeModelCallbackSync(
                (ctx, request) -> {
                  Map<String, BaseTool> m = new HashMap<>(request.build().tools());
                  m.put("bookTable", foreignBook);
                  request.tools(m);
                  return Optional.empty();
                })
            .build();
    catchThrowable(() -> new RtTurn(agent, List.of(plugin())).say("go", cfg(desktop)));
    // Promised: no call through a runner holding the plugin runs outside ITS fence; the superseded
    // desktop run must not book.
    assertThat(world.effects).isEmpty();
  }

  // ---- 9. the run config carries a superseded run's lease while the session resolves the newer
  @Test
  void anotherRunsLeaseInTheRunConfigWinsAndIsRefused() {
    Lease desktop = acquire("desktop");
    Lease browser = takeOver();
    AdkToolFence fence = AdkToolFence.builder(agentFence).sessions(ctx -> key, sessions).build();
    try (var r = sessions.register(browser)) {
      Throwable t =
          catchThrowable(
              () ->
                  new RtTurn(
                          agent(
                              new RtLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("x"),
                              tools.tools()),
                          List.of(fence.plugin()))
                      .say("go", cfg(desktop)));
      assertThat(t).isInstanceOf(RunStoppedException.class);
    }
    assertThat(world.effects).isEmpty();
  }

  // ---- 10. junk in the lease slot with a resolvable session: must not run
  @Test
  void junkInTheLeaseSlotDoesNotFallBackSilently() {
    Lease desktop = acquire("desktop");
    takeOver();
    AdkToolFence fence = AdkToolFence.builder(agentFence).sessions(ctx -> key, sessions).build();
    RunConfig junk =
        RunConfig.builder()
            .toolExecutionMode(RunConfig.ToolExecutionMode.SEQUENTIAL)
            .customMetadata(Map.of(AdkToolFence.LEASE_KEY, desktop.token().toText()))
            .build();
    Throwable t =
        catchThrowable(
            () ->
                new RtTurn(
                        agent(
                            new RtLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("x"),
                            tools.tools()),
                        List.of(fence.plugin()))
                    .say("go", junk));
    assertThat(world.effects).isEmpty();
    assertThat(t).isNotNull();
  }

  // ---- 11. a tool that throws a non-Exception Throwable: a same-key retry must not run again
  @Test
  void aToolThatThrowsAnErrorIsNotRunAgainByTheSameKey() {
    AgentToolFence keyed =
        AgentToolFence.builder(
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.trustEveryWriter())
                    .journal(journal)
                    .build())
            .idempotencyKeys(AgentToolFence.IdempotencyKeys.argument("idempotencyKey"))
            .build();
    Lease desktop = acquire("desktop");
    keyed.startRun(desktop);
    int[] runs = {0};
    BaseTool crashing =
        new BaseTool("pay", "Pays") {
          @Override
          public Optional<FunctionDeclaration> declaration() {
            return Optional.of(
                FunctionDeclaration.builder().name("pay").description("Pays").build());
          }

          @Override
          public Single<Map<String, Object>> runAsync(Map<String, Object> a, ToolContext c) {
            runs[0]++;
            return Single.error(new StackOverflowError("after the side effect"));
          }
        };
    String call = "{\"idempotencyKey\":\"k-9\",\"name\":\"Ada\"}";
    RtLlm model = new RtLlm().callTools("pay", call).answer("x").callTools("pay", call).answer("y");
    RtTurn turn =
        new RtTurn(
            agent(model, List.of(crashing)),
            List.of(AdkToolFence.builder(keyed).endRunOnRefusal(false).build().plugin()));
    catchThrowable(() -> turn.say("go", cfg(desktop)));
    catchThrowable(() -> turn.say("retry", cfg(desktop)));
    assertThat(runs[0]).isEqualTo(1);
  }
}
