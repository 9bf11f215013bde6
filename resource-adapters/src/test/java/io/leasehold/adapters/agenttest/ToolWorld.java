package io.leasehold.adapters.agenttest;

import io.leasehold.fencing.FencingToken;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * "The world" that the scenarios' side-effecting tools act on: what reached it, and the token each
 * call saw. A framework module's tool class (with that framework's annotations) delegates here.
 */
public final class ToolWorld {
  /** What reached the world, in order: {@code sent:<text>} and {@code booked:<name>}. */
  public final List<String> effects = new CopyOnWriteArrayList<>();

  /** The token each {@link #send} call read from its framework's context. */
  public final List<Optional<FencingToken>> tokensSeen = new CopyOnWriteArrayList<>();

  private volatile Runnable duringNextSend = () -> {};

  /**
   * Runs an action inside the next {@link #send} call, before it acts (a takeover mid-call).
   *
   * @param action the action
   */
  public void duringNextSend(Runnable action) {
    duringNextSend = action;
  }

  /**
   * Sends a message.
   *
   * @param text the message
   * @param token the token the framework handed the tool
   * @return what the tool answers the model
   */
  public String send(String text, Optional<FencingToken> token) {
    Runnable during = duringNextSend;
    duringNextSend = () -> {};
    during.run();
    tokensSeen.add(token);
    effects.add("sent:" + text);
    return "sent";
  }

  /**
   * Books a table.
   *
   * @param name who for
   * @return what the tool answers the model
   */
  public String book(String name) {
    effects.add("booked:" + name);
    return "booked";
  }
}
