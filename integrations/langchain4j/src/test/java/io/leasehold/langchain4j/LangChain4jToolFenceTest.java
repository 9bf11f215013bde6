package io.leasehold.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProviderResult;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.agent.UnresolvedSessionException;
import io.leasehold.adapters.agenttest.ParallelToolCallScenarios;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.Lease;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * LangChain4j AI services with fenced tools: the shared agent-tool scenarios through an AI service,
 * the parallel-call scenarios through concurrent tool execution, and what is LangChain4j's own
 * (memory ids, tool maps and providers).
 */
class LangChain4jToolFenceTest extends ParallelToolCallScenarios {
  interface Assistant {
    String chat(@UserMessage String message, InvocationParameters parameters);
  }

  interface MemoryAssistant {
    String chat(@MemoryId String session, @UserMessage String message);
  }

  private final RecordingTools tools = new RecordingTools(world);

  LangChain4jToolFenceTest() {
    super("LangChain4jToolFence.parameters(lease)", "conversation");
  }

  @Override
  protected Turn turn(Lease lease, boolean endRunOnRefusal, String answer, String... toolCalls) {
    return turn(false, lease, endRunOnRefusal, answer, toolCalls);
  }

  @Override
  protected Turn turnInParallel(
      Lease lease, boolean endRunOnRefusal, String answer, String... toolCalls) {
    return turn(true, lease, endRunOnRefusal, answer, toolCalls);
  }

  private Turn turn(
      boolean concurrently,
      Lease lease,
      boolean endRunOnRefusal,
      String answer,
      String... toolCalls) {
    ScriptedChatModel model = new ScriptedChatModel().callTools(toolCalls).answer(answer);
    LangChain4jToolFence fence =
        LangChain4jToolFence.builder(agentFence).endRunOnRefusal(endRunOnRefusal).build();
    String said = assistant(model, fence, concurrently).chat("go", parameters(lease));
    return new Turn(said, model.toolResultsSeen());
  }

  @Override
  protected void turnCallingACrashingTool(Lease lease, String tool, String arguments, Error crash) {
    ToolSpecification spec = ToolSpecification.builder().name(tool).description("Crashes").build();
    ToolExecutor crashing =
        (request, memoryId) -> {
          throw crash;
        };
    LangChain4jToolFence fence = LangChain4jToolFence.builder(agentFence).build();
    AiServices.builder(Assistant.class)
        .chatModel(new ScriptedChatModel().callTools(tool, arguments).answer("x"))
        .tools(fence.wrap(Map.of(spec, crashing)))
        .toolExecutionErrorHandler(fence.errorHandler())
        .build()
        .chat("go", parameters(lease));
  }

  @Override
  protected void turnResolvedToNoSession(String... toolCalls) {
    LangChain4jToolFence fence =
        LangChain4jToolFence.builder(agentFence).sessions(ctx -> null, sessions).build();
    assistant(new ScriptedChatModel().callTools(toolCalls).answer("done"), fence, false)
        .chat("greet", new InvocationParameters());
  }

  private static InvocationParameters parameters(Lease lease) {
    return lease == null ? new InvocationParameters() : LangChain4jToolFence.parameters(lease);
  }

  private Assistant assistant(
      ScriptedChatModel model, LangChain4jToolFence fence, boolean concurrently) {
    AiServices<Assistant> b = services(Assistant.class, model, fence);
    if (concurrently) {
      b.executeToolsConcurrently();
    }
    return b.build();
  }

  /**
   * An AI service of {@code type} on {@code model}, calling this test's tools through the fence.
   */
  private <A> AiServices<A> services(
      Class<A> type, ScriptedChatModel model, LangChain4jToolFence fence) {
    return AiServices.builder(type)
        .chatModel(model)
        .tools(fence.wrapObjects(tools))
        .toolExecutionErrorHandler(fence.errorHandler());
  }

  @Test
  void aRunFoundBySessionThroughItsMemoryId() {
    Lease desktop = acquire("desktop");
    LangChain4jToolFence fence =
        LangChain4jToolFence.builder(agentFence)
            .sessions(ctx -> LeaseKey.of("acct-7", (String) ctx.chatMemoryId()), sessions)
            .build();
    ScriptedChatModel model =
        new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");
    // Each conversation's memory is keyed by its memory id, which the resolver maps to a session.
    MemoryAssistant assistant =
        services(MemoryAssistant.class, model, fence)
            .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
            .build();

    try (SessionLeases.Registration r = sessions.register(desktop)) {
      assertThat(assistant.chat(key.sessionId(), "greet")).isEqualTo("done");
    }
    assertThat(world.tokensSeen).containsExactly(Optional.of(desktop.token()));
  }

  @Test
  void aLeaseOfAnotherSessionThanTheConversationIsRefused() {
    Lease desktop = acquire("desktop");
    LangChain4jToolFence fence =
        LangChain4jToolFence.builder(agentFence)
            .sessions(ctx -> LeaseKey.of("acct-7", "some-other-chat"), sessions)
            .build();
    ScriptedChatModel model =
        new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");
    assertThatThrownBy(
            () ->
                assistant(model, fence, false)
                    .chat("greet", LangChain4jToolFence.parameters(desktop)))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining("some-other-chat");
    assertThat(world.effects).isEmpty();
  }

  @Test
  void toolsGivenAsAMapOrThroughAProviderAreFencedToo() throws Exception {
    Lease desktop = supersededDesktop();
    Method send =
        RecordingTools.class.getMethod("sendMessage", String.class, InvocationParameters.class);
    ToolSpecification spec = ToolSpecifications.toolSpecificationFrom(send);
    Map<ToolSpecification, ToolExecutor> plain = Map.of(spec, new DefaultToolExecutor(tools, send));
    LangChain4jToolFence fence = LangChain4jToolFence.builder(agentFence).build();

    Assistant viaMap =
        AiServices.builder(Assistant.class)
            .chatModel(
                new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"map\"}").answer("x"))
            .tools(fence.wrap(plain))
            .toolExecutionErrorHandler(fence.errorHandler())
            .build();
    assertThatThrownBy(() -> viaMap.chat("go", LangChain4jToolFence.parameters(desktop)))
        .isInstanceOf(RunStoppedException.class);

    Assistant viaProvider =
        AiServices.builder(Assistant.class)
            .chatModel(
                new ScriptedChatModel()
                    .callTools("sendMessage", "{\"text\":\"provider\"}")
                    .answer("x"))
            .toolProvider(fence.wrap(request -> new ToolProviderResult(plain)))
            .toolExecutionErrorHandler(fence.errorHandler())
            .build();
    assertThatThrownBy(() -> viaProvider.chat("go", LangChain4jToolFence.parameters(desktop)))
        .isInstanceOf(RunStoppedException.class);

    assertThat(world.effects).isEmpty();
  }
}
