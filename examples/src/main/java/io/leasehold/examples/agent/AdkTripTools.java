package io.leasehold.examples.agent;

import com.google.adk.tools.Annotations.Schema;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.FunctionTool;
import com.google.adk.tools.ToolContext;
import io.leasehold.adk.AdkToolFence;
import java.util.List;

/**
 * The demo's tools as an ADK application writes them: plain methods that ADK turns into function
 * tools, reading the admitted token from their {@link ToolContext}. They do what {@link TripTools}
 * does.
 */
public final class AdkTripTools {
  private final TripTools tools;

  AdkTripTools(TripTools tools) {
    this.tools = tools;
  }

  /** The tools, as the agent is given them. */
  List<BaseTool> functionTools() {
    return List.of(
        FunctionTool.create(this, "sendMessage"),
        FunctionTool.create(this, "writeFile"),
        FunctionTool.create(this, "bookTable"));
  }

  /**
   * Sends the user a chat message.
   *
   * @param text the message
   * @param toolContext the call's context, which carries the admitted token
   * @return what happened
   */
  @Schema(description = "Sends the user a chat message")
  public String sendMessage(
      @Schema(name = "text", description = "the message") String text, ToolContext toolContext) {
    return tools.send(text, AdkToolFence.token(toolContext));
  }

  /**
   * Writes a file of the conversation.
   *
   * @param name the file's name
   * @param content what to write
   * @param toolContext the call's context, which carries the admitted token
   * @return what happened
   */
  @Schema(description = "Writes a file of the conversation")
  public String writeFile(
      @Schema(name = "name", description = "file name") String name,
      @Schema(name = "content", description = "content") String content,
      ToolContext toolContext) {
    return tools.write(name, content, AdkToolFence.token(toolContext));
  }

  /**
   * Books a restaurant table.
   *
   * @param name who for
   * @param time when
   * @param toolContext the call's context, which carries the admitted token
   * @return what happened
   */
  @Schema(description = "Books a restaurant table")
  public String bookTable(
      @Schema(name = "name", description = "guest name") String name,
      @Schema(name = "time", description = "time") String time,
      ToolContext toolContext) {
    return tools.book(name, time, AdkToolFence.token(toolContext));
  }
}
