package io.leasehold.adapters.agenttest;

import com.fasterxml.jackson.databind.node.TextNode;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.adapters.tool.TestTools;
import io.leasehold.fencing.Fenced;
import io.leasehold.testkit.AgentFrameworkContract;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The part of an {@link AgentFrameworkContract} harness that is the same in every framework: one
 * tool, {@code record(text, idempotencyKey)}, fenced over an in-memory journal whose calls are
 * deduplicated by the {@code idempotencyKey} argument. A framework's harness sends {@link #call}'s
 * turn through its framework, to a tool of its own that calls {@link #record(String)}.
 */
public abstract class RecordingAgentHarness implements AgentFrameworkContract.AgentHarness {
  /** The fence the framework's fence is built over. */
  protected final AgentToolFence agentFence =
      AgentToolFence.builder(TestTools.trustingExecutor(new MemoryToolJournal()).build())
          .idempotencyKeys(AgentToolFence.IdempotencyKeys.argument("idempotencyKey"))
          .build();

  private final List<String> effects = new CopyOnWriteArrayList<>();

  /**
   * The tool's body: records a text in the world.
   *
   * @param text the text
   * @return what the tool answers the model
   */
  public String record(String text) {
    effects.add(text);
    return "recorded " + text;
  }

  /**
   * The JSON arguments of one {@code record} call.
   *
   * @param text the text
   * @param idempotencyKey the call's idempotency key, if any
   * @return the arguments
   */
  protected static String recordArguments(String text, Optional<String> idempotencyKey) {
    return "{\"text\":"
        + quoted(text)
        + ",\"idempotencyKey\":"
        + quoted(idempotencyKey.orElse(""))
        + "}";
  }

  private static String quoted(String s) {
    return TextNode.valueOf(s).toString();
  }

  @Override
  public void startRun(Fenced run) {
    agentFence.startRun(run);
  }

  @Override
  public List<String> effects() {
    return List.copyOf(effects);
  }
}
