package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.testkit.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A durable journal crashed at a step of an idempotent call (a child JVM halts there, {@link
 * CrashingCallMain}), then the next run retries the call: whatever was journaled is read back, and
 * the tool's effect happens once, except where the journal cannot know (the tool acted and the
 * process died before its result was written: the call is in doubt, and the next run's retry runs
 * it again, as docs/resource-owners.md says).
 */
final class CrashedCalls {
  private CrashedCalls() {}

  /**
   * @param journal what the child opens: a file, or a database as {@code url\nuser\npassword}
   * @param reopen the same journal, opened again in this process
   * @param dir where the tool records its effects
   * @param step where the child halts
   */
  static void crashThenRetry(String journal, Supplier<ToolJournal> reopen, Path dir, String step)
      throws Exception {
    Path effects = dir.resolve("effects-" + step);
    String session = "chat-" + UUID.randomUUID();
    try (ChildJvm child =
        ChildJvm.start(CrashingCallMain.class, journal, effects.toString(), step, "3", session)) {
      child.awaitLine("HALT " + step, 60);
      assertThat(child.awaitExit(60)).isEqualTo(3);
    }
    boolean acted = !step.equals("before-start") && !step.equals("before-effect");
    assertThat(Files.exists(effects) ? Files.readAllLines(effects).size() : 0)
        .isEqualTo(acted ? 1 : 0);

    ToolJournal journalAfter = reopen.get();
    LeaseKey key = LeaseKey.of("acct", session);
    List<ToolCall> calls = journalAfter.calls(key);
    if (step.equals("before-start")) {
      // The intent and the start are one transaction, which never committed: no trace, and
      // nothing in doubt for the next run (an intent committed on its own stayed behind).
      assertThat(calls).isEmpty();
    } else {
      assertThat(calls).hasSize(1);
      assertThat(calls.get(0).state())
          .isEqualTo(
              step.equals("after-return") ? ToolCall.State.FINISHED : ToolCall.State.STARTED);
    }

    AtomicInteger ran = new AtomicInteger();
    FencedTool retry = TestTools.idempotentCounting("send_mail", "message", ran, "sent again");
    FencedToolExecutor next = trustingExecutor(journalAfter).tool(retry).build();
    FencingToken newer = new FencingToken(key, 4, UUID.randomUUID());
    ToolResult r =
        next.call(newer, "send_mail", JsonNodeFactory.instance.objectNode().put("message", "m-1"));
    if (step.equals("after-return")) {
      assertThat(r.replayed()).isTrue();
      assertThat(r.value().asText()).isEqualTo("sent once");
      assertThat(ran).hasValue(0);
    } else {
      assertThat(r.replayed()).isFalse();
      assertThat(ran).hasValue(1);
    }
  }
}
