package io.leasehold.adk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.adk.agents.LiveRequestQueue;
import com.google.adk.agents.LlmAgent;
import com.google.adk.agents.RunConfig;
import com.google.adk.models.BaseLlm;
import com.google.adk.models.BaseLlmConnection;
import com.google.adk.models.LlmRequest;
import com.google.adk.models.LlmResponse;
import com.google.adk.plugins.BasePlugin;
import com.google.adk.plugins.Plugin;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.FunctionTool;
import com.google.adk.tools.ToolContext;
import com.google.genai.types.Blob;
import com.google.genai.types.Content;
import com.google.genai.types.FunctionCall;
import com.google.genai.types.Part;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.adapters.tool.TestTools;
import io.leasehold.adapters.tool.ToolScope;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.Refusal;
import io.leasehold.lease.Lease;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Maybe;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Ways around the fence through ADK's own extension points (callbacks and plugins that swap tools
 * or rewrite arguments, another fence's decorator, live mode) and through what the run config
 * carries: none of them runs a tool the fence did not admit.
 */
class AdkBypassTest extends AdkAgentFixture {
  @Test
  void aSameNameToolSwappedInAfterThePluginDoesNotRun() {
    Lease desktop = supersededDesktop();
    LlmAgent agent = swappingIn(FunctionTool.create(tools, "bookTable"));

    Throwable t = catchThrowable(() -> turnOf(agent, fence(true), desktop));

    assertRefusedAsUnfenced(t, "bookTable");
  }

  @Test
  void aToolDecoratedByAnotherFenceIsRefused() {
    Lease desktop = supersededDesktop();
    // A fence that trusts every writer and journals in memory: it never saw the takeover.
    AdkToolFence foreign =
        AdkToolFence.builder(
                AgentToolFence.builder(TestTools.trustingExecutor(new MemoryToolJournal()).build())
                    .build())
            .build();
    LlmAgent agent = swappingIn(foreign.wrap(FunctionTool.create(tools, "bookTable")));

    Throwable t = catchThrowable(() -> turnOf(agent, fence(true), desktop));

    assertRefusedAsUnfenced(t, "another AdkToolFence");
  }

  @Test
  void anotherFencesDecoratorInTheAgentIsDecoratedAnewByThePlugin() {
    Lease desktop = supersededDesktop();
    AdkToolFence other = fence(true);
    BaseTool book = other.wrap(FunctionTool.create(tools, "bookTable"));
    AdkToolFence fence = fence(true);
    assertThat(fence.wrap(book)).isNotSameAs(book).isInstanceOf(FencedTool.class);
    assertThat(((FencedTool) fence.wrap(book)).fence()).isSameAs(fence);

    LlmAgent agent =
        agent(new ScriptedLlm().callTools("bookTable", BOOK_ADA).answer("x"), List.of(book));
    Throwable t = catchThrowable(() -> turnOf(agent, fence, desktop));

    assertThat(t).isInstanceOf(RunStoppedException.class);
    assertNothingRan();
  }

  @Test
  void argumentsRewrittenByAnAgentCallbackAreStillScopeChecked() {
    Lease desktop = acquire("desktop");
    LlmAgent agent =
        LlmAgent.builder()
            .name("assistant")
            .model(new ScriptedLlm().callTools("bookTable", inScopeName()).answer("x"))
            .tools(tools.tools())
            .beforeToolCallbackSync(
                (ctx, tool, args, toolContext) -> {
                  args.put("name", "other-acct/chat/Mallory");
                  return Optional.empty();
                })
            .build();

    Throwable t = catchThrowable(() -> turnOf(agent, scopedFence(), desktop));

    assertThat(t).isInstanceOf(RunStoppedException.class);
    assertThat(((RunStoppedException) t).stop().reason()).isEqualTo(Refusal.Reason.OUT_OF_SCOPE);
    assertThat(world.effects).isEmpty();
  }

  @Test
  void argumentsRewrittenByALaterPluginAreStillScopeChecked() {
    Lease desktop = acquire("desktop");
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
        agent(new ScriptedLlm().callTools("bookTable", inScopeName()).answer("x"), tools.tools());

    Throwable t =
        catchThrowable(
            () ->
                new AdkTurn(agent, List.of(scopedFence().plugin(), rewriter))
                    .say("go", runConfig(desktop, sequential())));

    assertThat(t).isInstanceOf(RunStoppedException.class);
    assertThat(((RunStoppedException) t).stop().reason()).isEqualTo(Refusal.Reason.OUT_OF_SCOPE);
    assertThat(world.effects).isEmpty();
  }

  @Test
  void aRefusalAnErrorCallbackAnswersDoesNotLetTheRunsNextCallRun() {
    Lease desktop = supersededDesktop();
    ScriptedLlm model =
        new ScriptedLlm()
            .callTools("bookTable", BOOK_ADA)
            .callTools("sendMessage", "{\"text\":\"hi\"}")
            .answer("done");
    LlmAgent agent =
        LlmAgent.builder()
            .name("assistant")
            .model(model)
            .tools(tools.tools())
            .onToolErrorCallback(
                (ctx, tool, args, toolContext, error) ->
                    Maybe.just(Map.<String, Object>of("error", "ignored")))
            .build();

    assertThat(AdkTurn.lastText(turnOf(agent, fence(true), desktop))).isEqualTo("done");
    assertThat(model.toolResultsSeen()).containsExactly("ignored", "ignored");
    assertNothingRan();
  }

  @Test
  void aReleasedLeaseRunsNoTool() {
    Lease desktop = acquire("desktop");
    desktop.release();

    Throwable t = catchThrowable(() -> turnOf(booking(), fence(true), desktop));

    assertThat(t).isInstanceOf(RunStoppedException.class);
    assertNothingRan();
  }

  @Test
  void aLeaseThatThrowsRunsNoTool() {
    Fenced broken =
        () -> {
          throw new IllegalStateException("lease store down");
        };

    Throwable t = catchThrowable(() -> turnOf(booking(), fence(true), broken));

    assertThat(t).isInstanceOf(IllegalStateException.class).hasMessage("lease store down");
    assertNothingRan();
  }

  @Test
  void theRunConfigsLeaseWinsOverTheSessionsNewerRun() {
    Throwable t = bookingWhileTheBrowserIsRegistered(desktop -> runConfig(desktop, sequential()));

    assertThat(t).isInstanceOf(RunStoppedException.class).hasMessageContaining("superseded");
    assertNothingRan();
  }

  @Test
  void junkInTheLeaseEntryDoesNotFallBackToTheSession() {
    Throwable t =
        bookingWhileTheBrowserIsRegistered(
            desktop ->
                sequential().toBuilder()
                    .customMetadata(Map.of(AdkToolFence.LEASE_KEY, desktop.token().toText()))
                    .build());

    assertThat(t).hasMessageContaining(AdkToolFence.LEASE_KEY);
    assertNothingRan();
  }

  /**
   * The browser takes the session over and registers its run; then a booking turn of the desktop
   * goes through a fence that can find the session's run, with the run config {@code runConfig}
   * makes of the desktop's lease.
   *
   * @return what the turn threw
   */
  private Throwable bookingWhileTheBrowserIsRegistered(Function<Lease, RunConfig> runConfig) {
    Lease desktop = acquire("desktop");
    Lease browser = takeOver();
    AdkToolFence fence = AdkToolFence.builder(agentFence).sessions(ctx -> key, sessions).build();
    try (SessionLeases.Registration r = sessions.register(browser)) {
      return catchThrowable(
          () ->
              new AdkTurn(booking(), List.of(fence.plugin())).say("go", runConfig.apply(desktop)));
    }
  }

  @Test
  void anUndecoratedToolInLiveModeIsRefusedWithHowToDecorateIt() {
    Lease desktop = supersededDesktop();

    Throwable t = liveTurn(fence(true), tools.tools(), desktop);

    assertRefusedAsUnfenced(t, "bookTable", "live mode", "AdkToolFence.wrap(tools)");
  }

  @Test
  void aDecoratedToolInLiveModeIsFenced() {
    Lease desktop = supersededDesktop();
    AdkToolFence fence = fence(true);

    Throwable t = liveTurn(fence, fence.wrap(tools.tools()), desktop);

    assertThat(t).isInstanceOf(RunStoppedException.class).hasMessageContaining("superseded");
    assertNothingRan();
  }

  /** The turn ended on a tool the fence does not guard, before any tool ran; the error says why. */
  private void assertRefusedAsUnfenced(Throwable t, String... says) {
    assertThat(t).isInstanceOf(UnfencedToolException.class).hasMessageContainingAll(says);
    assertNothingRan();
  }

  /** A live (bidirectional) run whose model asks to book a table for Ada: what ended it. */
  private static Throwable liveTurn(AdkToolFence fence, List<BaseTool> agentTools, Fenced lease) {
    LlmAgent agent =
        LlmAgent.builder().name("assistant").model(liveBooking()).tools(agentTools).build();
    AdkTurn turn = new AdkTurn(agent, List.of(fence.plugin()));
    RunConfig bidi =
        AdkToolFence.runConfig(
            RunConfig.builder().streamingMode(RunConfig.StreamingMode.BIDI).build(), lease);
    // The live model never ends its stream: the refusal ends it, the timeout bounds a failure.
    return catchThrowable(
        () ->
            turn.runner
                .runLive(turn.session, new LiveRequestQueue(), bidi)
                .timeout(30, TimeUnit.SECONDS)
                .blockingSubscribe());
  }

  /** An agent whose model books a table for Ada. */
  private LlmAgent booking() {
    return bookingAda("x").build();
  }

  /**
   * An agent whose model books a table for Ada, and whose before-model callback, which ADK runs
   * after the plugins', puts {@code swapped} in the request in place of {@code bookTable}.
   */
  private LlmAgent swappingIn(BaseTool swapped) {
    return bookingAda("x")
        .beforeModelCallbackSync(
            (ctx, request) -> {
              Map<String, BaseTool> m = new HashMap<>(request.build().tools());
              m.put("bookTable", swapped);
              request.tools(m);
              return Optional.empty();
            })
        .build();
  }

  /** A fence whose calls must name a resource under the scenario's key in {@code name}. */
  private AdkToolFence scopedFence() {
    return AdkToolFence.builder(
            AgentToolFence.builder(
                    TestTools.trustingExecutor(journal)
                        .scope(ToolScope.argumentUnderKey("name"))
                        .build())
                .build())
        .build();
  }

  private String inScopeName() {
    return "{\"name\":\"" + key.accountId() + "/" + key.sessionId() + "/Ada\"}";
  }

  /** A live model that asks to book a table for Ada, then waits. */
  private static BaseLlm liveBooking() {
    return new BaseLlm("live") {
      @Override
      public Flowable<LlmResponse> generateContent(LlmRequest request, boolean stream) {
        return Flowable.error(new IllegalStateException("this model only talks live"));
      }

      @Override
      public BaseLlmConnection connect(LlmRequest request) {
        return new BaseLlmConnection() {
          @Override
          public Completable sendHistory(List<Content> history) {
            return Completable.complete();
          }

          @Override
          public Completable sendContent(Content content) {
            return Completable.complete();
          }

          @Override
          public Completable sendRealtime(Blob blob) {
            return Completable.complete();
          }

          @Override
          public Flowable<LlmResponse> receive() {
            FunctionCall book =
                FunctionCall.builder()
                    .id("live-1")
                    .name("bookTable")
                    .args(Map.of("name", "Ada"))
                    .build();
            Content call =
                Content.builder()
                    .role("model")
                    .parts(Part.builder().functionCall(book).build())
                    .build();
            return Flowable.just(LlmResponse.builder().content(call).build())
                .concatWith(Flowable.never());
          }

          @Override
          public void close() {}

          @Override
          public void close(Throwable t) {}
        };
      }
    };
  }
}
