package io.leasehold.adapters.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.testing.TestDatabaseExtension;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A call's outcome ({@code finished}, {@code failed}) names the call by its id alone. The
 * PostgreSQL journal records it on the key it remembered when the call started ({@link
 * StartedCallKeys}), so Citus routes it to that key's shard, and otherwise (another journal object
 * started the call, or it was forgotten) by the call id alone. Either way it lands on its own call,
 * or is refused with nothing changed (CONTRACT C13). The same on one PostgreSQL and, with {@code
 * -Dleasehold.test.db=citus}, on a Citus coordinator.
 */
class JournalOutcomesTest {
  @RegisterExtension
  static final TestDatabaseExtension db = TestTools.journalDatabase("tool_journal_outcomes");

  private static final JsonNode ARGS = TestTools.ARGS;
  private static final JsonNode RESULT = JsonNodeFactory.instance.textNode("done");
  private final LeaseKey alice = LeaseKey.of("alice", "chat-" + UUID.randomUUID());
  private final LeaseKey bob = LeaseKey.of("bob", "chat-" + UUID.randomUUID());

  private static ToolCall call(UUID callId, LeaseKey key, long fence) {
    return TestTools.intent(
        callId, "echo", new FencingToken(key, fence, UUID.randomUUID()), ARGS, Optional.empty());
  }

  private static JdbcToolJournal journal() {
    return JdbcToolJournal.create(db.dataSource());
  }

  private static ToolCall only(JdbcToolJournal journal, LeaseKey key) {
    assertThat(journal.calls(key)).as("the calls of " + key).hasSize(1);
    return journal.calls(key).get(0);
  }

  /** As after a restart, or with two journal objects on one table: the outcome by call id alone. */
  @Test
  void anOutcomeThroughAJournalThatDidNotStartTheCallLandsOnThatCallAlone() {
    JdbcToolJournal started = journal();
    ToolCall hers = call(UUID.randomUUID(), alice, 3);
    ToolCall his = call(UUID.randomUUID(), bob, 3);
    started.start(hers);
    started.start(his);
    JdbcToolJournal other = journal();
    other.finished(hers.callId(), RESULT);
    other.failed(his.callId(), "boom");
    assertThat(only(started, alice).state()).isEqualTo(ToolCall.State.FINISHED);
    assertThat(only(started, alice).result()).contains(RESULT);
    assertThat(only(started, bob).state()).isEqualTo(ToolCall.State.FAILED);
    assertThat(only(started, bob).error()).contains("boom");
  }

  @Test
  void anOutcomeForACallNeverJournaledChangesNothing() {
    JdbcToolJournal journal = journal();
    ToolCall hers = call(UUID.randomUUID(), alice, 3);
    journal.start(hers);
    UUID unknown = UUID.randomUUID();
    assertThatThrownBy(() -> journal.finished(unknown, RESULT))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("call " + unknown + " was never journaled as intended");
    assertThatThrownBy(() -> journal.failed(unknown, "boom"))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("was never journaled as intended");
    assertThat(only(journal, alice).state()).isEqualTo(ToolCall.State.STARTED);
  }

  /**
   * A stale admission records the refusal on the call it names, under the token's key. It named the
   * call by its id alone: a token of bob's with a call id of alice's marked alice's call refused,
   * and committed that. Now the refusal names the key, finds no such call of bob's, and the whole
   * transaction rolls back.
   */
  @Test
  void aStaleAdmissionNamingAnotherKeysCallChangesNothing() {
    JdbcToolJournal journal = journal();
    ToolCall hers = call(UUID.randomUUID(), alice, 3);
    journal.intended(hers);
    journal.admit(new FencingToken(bob, 10, UUID.randomUUID()));
    FencingToken staleOfBob = new FencingToken(bob, 5, UUID.randomUUID());
    assertThatThrownBy(() -> journal.admitAndStart(staleOfBob, hers.callId()))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("was never journaled as intended");
    ToolCall after = only(journal, alice);
    assertThat(after.state()).isEqualTo(ToolCall.State.INTENDED);
    assertThat(after.error()).isEmpty();
    assertThat(journal.calls(bob)).isEmpty();
  }

  /**
   * One call id given to calls of two keys (a caller's mistake: the executor draws a random id per
   * call). On one PostgreSQL the call id is the primary key, so the second call is refused. On
   * Citus it is unique per account only, so both are journaled; an outcome by call id alone would
   * then change two calls, and is refused with nothing recorded, while each journal that started
   * one of them records its outcome on its own key.
   */
  @Test
  void aCallIdOfTwoKeysNeverGetsItsOutcomeOnTheWrongCall() {
    UUID shared = UUID.randomUUID();
    JdbcToolJournal aliceJournal = journal();
    aliceJournal.start(call(shared, alice, 3));
    JdbcToolJournal bobJournal = journal();
    boolean bothJournaled;
    try {
      bobJournal.start(call(shared, bob, 3));
      bothJournaled = true;
    } catch (ResourceAccessException e) {
      bothJournaled = false; // the primary key of one PostgreSQL
      assertThat(bobJournal.calls(bob)).isEmpty();
    }
    if (bothJournaled) {
      assertThatThrownBy(() -> journal().finished(shared, RESULT))
          .isInstanceOf(ResourceAccessException.class)
          .hasMessageContaining("names 2 calls of different keys")
          .hasMessageContaining("nothing was recorded");
      assertThat(only(aliceJournal, alice).state()).isEqualTo(ToolCall.State.STARTED);
      assertThat(only(aliceJournal, bob).state()).isEqualTo(ToolCall.State.STARTED);
      bobJournal.failed(shared, "boom");
      assertThat(only(aliceJournal, bob).state()).isEqualTo(ToolCall.State.FAILED);
      assertThat(only(aliceJournal, alice).state()).isEqualTo(ToolCall.State.STARTED);
    }
    aliceJournal.finished(shared, RESULT);
    assertThat(only(aliceJournal, alice).state()).isEqualTo(ToolCall.State.FINISHED);
  }
}
