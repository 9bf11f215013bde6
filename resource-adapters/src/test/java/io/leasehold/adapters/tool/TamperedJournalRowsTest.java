package io.leasehold.adapters.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
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
}
