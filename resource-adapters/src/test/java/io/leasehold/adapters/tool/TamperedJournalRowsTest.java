package io.leasehold.adapters.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.fencing.mark.MarkStoreException;
import io.leasehold.testing.TestDatabaseExtension;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 27, finding 8: rows of the PostgreSQL journal edited outside it. A deleted or lowered mark
 * row admitted a stale call; a negative mark gave an unclear error; {@code calls()} trusted the
 * token text over the fence column. Each case is now refused, naming the repair.
 */
class TamperedJournalRowsTest {
  @RegisterExtension
  static final TestDatabaseExtension db = TestTools.journalDatabase("tool_journal_tampered");

  private static final JsonNode ARGS = TestTools.ARGS;
  private final LeaseKey key = LeaseKey.of("acct", "chat-" + UUID.randomUUID());
  private final AtomicInteger ran = new AtomicInteger();

  private FencedToolExecutor executor() {
    return FencedToolExecutor.builder()
        .verifier(TokenVerifier.trustEveryWriter())
        .adminPolicy(AdminPolicy.operators(Set.of("ops")))
        .journal(JdbcToolJournal.create(db.dataSource()))
        .tool(
            FencedTool.of(
                "send",
                args -> {
                  ran.incrementAndGet();
                  return JsonNodeFactory.instance.textNode("sent");
                }))
        .build();
  }

  private FencingToken token(long fence) {
    return new FencingToken(key, fence, UUID.randomUUID());
  }

  private void sql(String statement) throws Exception {
    db.database().execute(statement.replace("$A", key.accountId()).replace("$S", key.sessionId()));
  }

  /**
   * A call with fence {@code written} runs, {@code tamper} edits the tables behind the executor's
   * back, and the next call, with fence {@code next}, must be refused as damage.
   */
  private AbstractThrowableAssert<?, ? extends Throwable> refusedAfter(
      FencedToolExecutor tools, long written, String tamper, long next) throws Exception {
    tools.call(token(written), "send", ARGS);
    sql(tamper);
    return assertThatThrownBy(() -> tools.call(token(next), "send", ARGS))
        .isInstanceOf(ResourceAccessException.class);
  }

  @Test
  void aDeletedMarkRowIsDamageNotZero() throws Exception {
    FencedToolExecutor tools = executor();
    refusedAfter(
            tools,
            10,
            "DELETE FROM leasehold_tool_mark WHERE account_id = '$A' AND session_id = '$S'",
            5)
        .hasMessageContaining("calls with fence 10 were admitted")
        .hasMessageContaining("resetMark");
    assertThat(ran).hasValue(1);
  }

  @Test
  void aLoweredMarkRowIsDamageAndAResetRepairsIt() throws Exception {
    FencedToolExecutor tools = executor();
    refusedAfter(
            tools,
            10,
            "UPDATE leasehold_tool_mark SET fence = 3 WHERE account_id = '$A' AND session_id = '$S'",
            5)
        .hasMessageContaining("is 3, but calls with fence 10 were admitted");
    assertThat(ran).hasValue(1);

    // The operator's reset is the repair; afterwards the fence rule applies from the new mark.
    tools.resetMark(key, 10, "ops", "mark row lowered by hand, incident 9");
    assertThatThrownBy(() -> tools.call(token(5), "send", ARGS))
        .isInstanceOf(io.leasehold.fencing.StaleFenceException.class);
    tools.call(token(11), "send", ARGS);
    assertThat(ran).hasValue(2);
  }

  /** A reset below a forged token's admitted fence is the intended recovery, not damage. */
  @Test
  void aResetBelowAForgedAdmissionIsHonoured() {
    FencedToolExecutor tools = executor();
    tools.call(token(Long.MAX_VALUE), "send", ARGS);
    tools.resetMark(key, 6, "ops", "forged token, incident 7");
    tools.call(token(7), "send", ARGS);
    assertThat(ran).hasValue(2);
    assertThat(tools.highWaterMark(key)).hasValue(7);
  }

  @Test
  void aNegativeMarkIsAClearError() throws Exception {
    FencedToolExecutor tools = executor();
    refusedAfter(
            tools,
            2,
            "UPDATE leasehold_tool_mark SET fence = -5 WHERE account_id = '$A' AND session_id = '$S'",
            3)
        .hasMessageContaining("holds -5, which is not a fence");
  }

  @Test
  void callsAreAnsweredFromTheColumnsNotFromAnEditedTokenText() throws Exception {
    FencedToolExecutor tools = executor();
    FencingToken honest = token(4);
    tools.call(honest, "send", ARGS);
    String raised = new FencingToken(key, 400, honest.runId()).toText();
    sql(
        "UPDATE leasehold_tool_call SET token = '"
            + raised
            + "' WHERE account_id = '$A' AND session_id = '$S'");
    assertThatThrownBy(() -> tools.calls(key))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("disagrees with its fence 4");
  }

  /**
   * An executor that ran a call with fence 9, and reset rows inserted by hand from {@code rows}.
   */
  private FencedToolExecutor calledWithFence9AndAResetRowByHand(String rows) throws Exception {
    FencedToolExecutor tools = executor();
    tools.call(token(9), "send", ARGS);
    sql(
        "INSERT INTO leasehold_tool_mark_reset (id, at, operator, account_id, session_id,"
            + " previous_mark, new_mark, reason) "
            + rows);
    return tools;
  }

  /**
   * Red team 47, B5: a reset row edited by hand gave a bare IllegalArgumentException that named no
   * row. It is named now, with its table, id and repair, and admissions go on: they never read the
   * audit.
   */
  @Test
  void aDamagedResetRowIsNamedWithItsRepair() throws Exception {
    FencedToolExecutor tools =
        calledWithFence9AndAResetRowByHand(
            "VALUES (900001, now(), '', '$A'," + " '$S', -5, -7, '')");
    try {
      assertThatThrownBy(tools::markResets)
          .isInstanceOf(ResourceAccessException.class)
          .hasCauseInstanceOf(MarkStoreException.class)
          .hasMessageContaining("row id 900001 of leasehold_tool_mark_reset")
          .hasMessageContaining("previousMark must be 0 (none) or a fence, was -5")
          .hasMessageContaining("DELETE FROM leasehold_tool_mark_reset WHERE id = 900001");
      tools.call(token(10), "send", ARGS);
      assertThat(ran).hasValue(2);
    } finally {
      sql("DELETE FROM leasehold_tool_mark_reset WHERE id = 900001");
    }
  }

  /**
   * Red team 47, B6: reset rows inserted by hand with ids the sequence had not handed out yet made
   * the next operator reset fail with a duplicate key (23505). The reset now draws past them.
   */
  @Test
  void resetRowsInsertedByHandDoNotBlockTheNextReset() throws Exception {
    FencedToolExecutor tools =
        calledWithFence9AndAResetRowByHand(
            "SELECT id, now(), 'ops', '$A', 'elsewhere', 3, 2, 'by hand' FROM generate_series("
                + "(SELECT last_value FROM leasehold_tool_mark_reset_id_seq),"
                + " (SELECT last_value + 3 FROM leasehold_tool_mark_reset_id_seq)) AS id"
                + " ON CONFLICT (id) DO NOTHING");
    assertThat(tools.resetMark(key, 4, "ops", "after rows inserted by hand").newMark())
        .isEqualTo(4);
    assertThat(tools.markResets())
        .extracting(MarkReset::reason)
        .contains("after rows inserted by hand");
    assertThatThrownBy(() -> tools.call(token(3), "send", ARGS))
        .isInstanceOf(io.leasehold.fencing.StaleFenceException.class);
  }
}
