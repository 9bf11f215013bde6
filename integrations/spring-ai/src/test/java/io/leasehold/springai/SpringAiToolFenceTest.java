package io.leasehold.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.agent.UnresolvedSessionException;
import io.leasehold.adapters.agenttest.AgentToolFenceScenarios;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.Lease;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * Spring AI ChatClient calls with fenced tools: the shared agent-tool scenarios through a chat
 * client, and what is Spring AI's own (the conversation id in the tool context, the decorator).
 */
class SpringAiToolFenceTest extends AgentToolFenceScenarios {
  private final RecordingTools tools = new RecordingTools(world);

  SpringAiToolFenceTest() {
    super("SpringAiToolFence.toolContext(lease)", "the tool context");
  }

  @Override
  protected Turn turn(Lease lease, boolean endRunOnRefusal, String answer, String... toolCalls) {
    ScriptedChatModel model = new ScriptedChatModel().callTools(toolCalls).answer(answer);
    SpringAiToolFence fence =
        SpringAiToolFence.builder(agentFence).endRunOnRefusal(endRunOnRefusal).build();
    String said =
        ask(
            model,
            fence.wrapObjects(tools),
            lease == null ? Map.of("x", "y") : SpringAiToolFence.toolContext(lease));
    return new Turn(said, model.toolResultsSeen());
  }

  @Override
  protected void turnCallingACrashingTool(Lease lease, String tool, String arguments, Error crash) {
    ToolCallback crashing =
        new ToolCallback() {
          @Override
          public ToolDefinition getToolDefinition() {
            return ToolDefinition.builder()
                .name(tool)
                .description("Crashes")
                .inputSchema("{\"type\":\"object\"}")
                .build();
          }

          @Override
          public String call(String toolInput) {
            throw crash;
          }
        };
    ScriptedChatModel model = new ScriptedChatModel().callTools(tool, arguments).answer("x");
    SpringAiToolFence fence = SpringAiToolFence.builder(agentFence).build();
    ask(
        model,
        ToolCallbackProvider.from(fence.wrap(crashing)),
        SpringAiToolFence.toolContext(lease));
  }

  @Override
  protected void turnResolvedToNoSession(String... toolCalls) {
    SpringAiToolFence fence =
        SpringAiToolFence.builder(agentFence).sessions(ctx -> null, sessions).build();
    ask(
        new ScriptedChatModel().callTools(toolCalls).answer("done"),
        fence.wrapObjects(tools),
        Map.of(ChatMemory.CONVERSATION_ID, "unknown"));
  }

  @Override
  protected String asTheModelReadsIt(String returned) {
    // A method tool's return value is converted to JSON; the fence's refusal text is not.
    return '"' + returned + '"';
  }

  private static String ask(
      ScriptedChatModel model, ToolCallbackProvider callbacks, Map<String, Object> context) {
    return ChatClient.builder(model)
        .build()
        .prompt()
        .user("go")
        .tools(callbacks)
        .toolContext(context)
        .call()
        .content();
  }

  /** A fence that finds the run of the conversation in the tool context: session = its id. */
  private SpringAiToolFence fenceFindingRunsByConversationId() {
    return SpringAiToolFence.builder(agentFence)
        .sessions(
            ctx -> LeaseKey.of("acct-7", (String) ctx.getContext().get(ChatMemory.CONVERSATION_ID)),
            sessions)
        .build();
  }

  @Test
  void aRunFoundByTheConversationIdInTheToolContext() {
    Lease desktop = acquire("desktop");
    SpringAiToolFence fence = fenceFindingRunsByConversationId();
    ScriptedChatModel model =
        new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");
    try (SessionLeases.Registration r = sessions.register(desktop)) {
      assertThat(
              ask(
                  model,
                  fence.wrapObjects(tools),
                  Map.of(ChatMemory.CONVERSATION_ID, key.sessionId())))
          .isEqualTo("done");
    }
    assertThat(world.tokensSeen).containsExactly(Optional.of(desktop.token()));
  }

  @Test
  void aConversationWithNoRegisteredRunIsAClearError() {
    SpringAiToolFence fence = fenceFindingRunsByConversationId();
    ScriptedChatModel model =
        new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");

    assertThatThrownBy(
            () ->
                ask(
                    model,
                    fence.wrapObjects(tools),
                    Map.of(ChatMemory.CONVERSATION_ID, key.sessionId())))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining("no live run of session " + key);
    assertThat(world.effects).isEmpty();
  }

  @Test
  void theDecoratorKeepsTheToolsDefinition() {
    ToolCallback[] plain = org.springframework.ai.support.ToolCallbacks.from(tools);
    ToolCallback[] fenced = SpringAiToolFence.builder(agentFence).build().wrap(plain);
    for (int i = 0; i < plain.length; i++) {
      assertThat(fenced[i].getToolDefinition()).isEqualTo(plain[i].getToolDefinition());
      assertThat(fenced[i].getToolMetadata()).isEqualTo(plain[i].getToolMetadata());
    }
    assertThat(SpringAiToolFence.token(new ToolContext(Map.of()))).isEmpty();
  }
}
