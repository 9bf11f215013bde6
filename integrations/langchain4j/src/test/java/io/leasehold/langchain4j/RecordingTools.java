package io.leasehold.langchain4j;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.invocation.InvocationParameters;
import io.leasehold.adapters.agenttest.ToolWorld;

/** The scenarios' side-effecting tools as LangChain4j tools: each acts on the shared world. */
public class RecordingTools {
  private final ToolWorld world;

  RecordingTools(ToolWorld world) {
    this.world = world;
  }

  /**
   * Sends a message.
   *
   * @param text the message
   * @param parameters the invocation's parameters, which carry the admitted token
   * @return what happened
   */
  @Tool("Sends a chat message to the user")
  public String sendMessage(String text, InvocationParameters parameters) {
    return world.send(text, LangChain4jToolFence.token(parameters));
  }

  /**
   * Books a table.
   *
   * @param name who for
   * @return what happened
   */
  @Tool("Books a table")
  public String bookTable(String name) {
    return world.book(name);
  }
}
