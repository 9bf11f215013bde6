package io.leasehold.springai;

import io.leasehold.adapters.agenttest.ToolWorld;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.annotation.Tool;

/** The scenarios' side-effecting tools as Spring AI tools: each acts on the shared world. */
public class RecordingTools {
  private final ToolWorld world;

  RecordingTools(ToolWorld world) {
    this.world = world;
  }

  /**
   * Sends a message.
   *
   * @param text the message
   * @param context the tool context, which carries the admitted token
   * @return what happened
   */
  @Tool(description = "Sends a chat message to the user")
  public String sendMessage(String text, ToolContext context) {
    return world.send(text, SpringAiToolFence.token(context));
  }

  /**
   * Books a table.
   *
   * @param name who for
   * @return what happened
   */
  @Tool(description = "Books a table")
  public String bookTable(String name) {
    return world.book(name);
  }
}
