package io.leasehold.springai;

import io.leasehold.fencing.FencingToken;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.annotation.Tool;

/** Side-effecting tools that record what reached "the world" and the token each call saw. */
public class RecordingTools {
  final List<String> effects = new CopyOnWriteArrayList<>();
  final List<Optional<FencingToken>> tokensSeen = new CopyOnWriteArrayList<>();
  volatile Runnable duringNextSend = () -> {};

  /**
   * Sends a message.
   *
   * @param text the message
   * @param context the tool context
   * @return what happened
   */
  @Tool(description = "Sends a chat message to the user")
  public String sendMessage(String text, ToolContext context) {
    Runnable during = duringNextSend;
    duringNextSend = () -> {};
    during.run();
    tokensSeen.add(SpringAiToolFence.token(context));
    effects.add("sent:" + text);
    return "sent";
  }

  /**
   * Books a table.
   *
   * @param name who for
   * @return what happened
   */
  @Tool(description = "Books a table")
  public String bookTable(String name) {
    effects.add("booked:" + name);
    return "booked";
  }
}
