package io.leasehold.adk.redteam;

import com.google.adk.tools.Annotations.Schema;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.FunctionTool;
import com.google.adk.tools.ToolContext;
import io.leasehold.adapters.agenttest.ToolWorld;
import io.leasehold.adk.AdkToolFence;
import java.util.List;

/** Red-team tools over the shared world. */
public class RtTools {
  private final ToolWorld world;

  RtTools(ToolWorld world) {
    this.world = world;
  }

  List<BaseTool> tools() {
    return List.of(
        FunctionTool.create(this, "sendMessage"), FunctionTool.create(this, "bookTable"));
  }

  /**
   * Sends.
   *
   * @param text text
   * @param toolContext ctx
   * @return r
   */
  @Schema(description = "Sends a chat message to the user")
  public String sendMessage(@Schema(name = "text") String text, ToolContext toolContext) {
    return world.send(text, AdkToolFence.token(toolContext));
  }

  /**
   * Books.
   *
   * @param name who
   * @return r
   */
  @Schema(description = "Books a table")
  public String bookTable(@Schema(name = "name") String name) {
    return world.book(name);
  }

  /**
   * Pays, once per key.
   *
   * @param idempotencyKey key
   * @param name who
   * @return r
   */
  @Schema(description = "Pays")
  public String pay(
      @Schema(name = "idempotencyKey") String idempotencyKey, @Schema(name = "name") String name) {
    world.effects.add("paid:" + name);
    return "paid";
  }
}
