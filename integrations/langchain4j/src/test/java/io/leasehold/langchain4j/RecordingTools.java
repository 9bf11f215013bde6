package io.leasehold.langchain4j;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.invocation.InvocationParameters;
import io.leasehold.fencing.FencingToken;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** Side-effecting tools that record what reached "the world" and the token each call saw. */
public class RecordingTools {
  final List<String> effects = new CopyOnWriteArrayList<>();
  final List<Optional<FencingToken>> tokensSeen = new CopyOnWriteArrayList<>();
  volatile Runnable duringNextSend = () -> {};

  /**
   * Sends a message.
   *
   * @param text the message
   * @param parameters the invocation's parameters
   * @return what happened
   */
  @Tool("Sends a chat message to the user")
  public String sendMessage(String text, InvocationParameters parameters) {
    Runnable during = duringNextSend;
    duringNextSend = () -> {};
    during.run();
    tokensSeen.add(LangChain4jToolFence.token(parameters));
    effects.add("sent:" + text);
    return "sent";
  }

  /**
   * Books a table.
   *
   * @param name who for
   * @return what happened
   */
  @Tool("Books a table")
  public String bookTable(String name) {
    effects.add("booked:" + name);
    return "booked";
  }
}
