package io.leasehold.adk;

import com.google.adk.tools.Annotations.Schema;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.FunctionTool;
import com.google.adk.tools.ToolContext;
import io.leasehold.adapters.agenttest.ToolWorld;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** The scenarios' side-effecting tools as ADK function tools: each acts on the shared world. */
public class RecordingTools {
  private final ToolWorld world;

  /**
   * Counted down by each payment once it has acted: a turn whose parallel call was refused as a
   * duplicate ends while the other call may still be running, so a test waits on this rather than
   * reading the world at once.
   */
  final CountDownLatch paid = new CountDownLatch(1);

  RecordingTools(ToolWorld world) {
    this.world = world;
  }

  /** The tools, as an application gives them to an agent. */
  List<BaseTool> tools() {
    return List.of(
        FunctionTool.create(this, "sendMessage"), FunctionTool.create(this, "bookTable"));
  }

  /**
   * Sends a message.
   *
   * @param text the message
   * @param toolContext the call's context, which carries the admitted token
   * @return what happened
   */
  @Schema(description = "Sends a chat message to the user")
  public String sendMessage(@Schema(name = "text") String text, ToolContext toolContext) {
    return world.send(text, AdkToolFence.token(toolContext));
  }

  /**
   * Books a table.
   *
   * @param name who for
   * @return what happened
   */
  @Schema(description = "Books a table")
  public String bookTable(@Schema(name = "name") String name) {
    return world.book(name);
  }

  /**
   * Pays, once per idempotency key when the fence is given the key.
   *
   * @param idempotencyKey the payment's idempotency key
   * @param name who pays
   * @return what happened
   */
  @Schema(description = "Pays")
  public String pay(
      @Schema(name = "idempotencyKey") String idempotencyKey, @Schema(name = "name") String name) {
    world.effects.add("paid:" + name);
    paid.countDown();
    return "paid";
  }
}
