package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.testing.CitusCoordinator;
import io.leasehold.testing.PostgresServer;
import io.leasehold.testing.TestDatabaseExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code calls(key)} lists a key's calls in the order they were journaled (red team 48, P15): on
 * Citus the call rows' default {@code seq} was drawn on the key's worker, whose copy of the
 * sequence has a range of its own, so after a shard move the later calls listed first. The journal
 * now draws the number on the coordinator, and lists the calls a worker numbered before first.
 */
class JournalCallOrderTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate(
          "tool_journal_order", ds -> ToolJournalSchema.defaults().apply(ds));

  private final LeaseKey key = LeaseKey.of("acct-" + UUID.randomUUID(), "order");
  private final FencedToolExecutor tools =
      trustingExecutor(JdbcToolJournal.create(db.dataSource()))
          .tool(FencedTool.of("send", args -> JsonNodeFactory.instance.textNode("sent")))
          .build();
  private final FencingToken token = new FencingToken(key, 1, UUID.randomUUID());

  /** The ids of the calls journaled, in the order they were (arguments are redacted). */
  private final List<UUID> journaled = new ArrayList<>();

  private void call(int n) {
    journaled.add(
        tools.call(token, "send", JsonNodeFactory.instance.objectNode().put("n", n)).callId());
  }

  private List<UUID> listed() {
    return tools.calls(key).stream().map(ToolCall::callId).toList();
  }

  /**
   * A row numbered far above the journal's sequence, as a Citus worker numbered the calls before
   * this fix (2^49 and up), stays before the calls journaled after it. On Citus this failed while
   * the journal numbered a call GREATEST(nextval, the key's highest + 1): Citus evaluated that
   * expression on the coordinator with the key's highest read as null, so the later calls got the
   * sequence's small numbers and listed first.
   */
  @Test
  void callsJournaledAfterARowNumberedElsewhereListAfterIt() {
    UUID elsewhere = UUID.randomUUID();
    journaled.add(elsewhere);
    db.database()
        .execute(
            "INSERT INTO leasehold_tool_call (call_id, seq, account_id, session_id, tool, token,"
                + " fence, run_id, arguments, state) VALUES ('"
                + elsewhere
                + "', 562949953421317, '"
                + key.accountId()
                + "', 'order', 'send', '"
                + token.toText()
                + "', 1, '"
                + token.runId()
                + "', '{\"n\": 0}', 'FINISHED')");
    call(1);
    call(2);
    assertThat(listed()).containsExactlyElementsOf(journaled);
  }

  /**
   * On a Citus coordinator (skipped elsewhere): the order holds across a move of the key's shard.
   */
  @Test
  void callsKeepTheirOrderAcrossAShardMove() {
    Assumptions.assumeTrue(
        CitusCoordinator.KIND.equals(System.getProperty(PostgresServer.KIND_PROPERTY)),
        CitusCoordinator.HOW_TO + " (with -D" + PostgresServer.KIND_PROPERTY + "=citus)");
    call(1);
    call(2);
    call(3);
    db.database()
        .execute(
            "SELECT citus_move_shard_placement(s.shardid, s.nodename, s.nodeport, o.nodename,"
                + " o.nodeport, shard_transfer_mode => 'block_writes')"
                + " FROM citus_shards s, pg_dist_node o WHERE s.shardid ="
                + " get_shard_id_for_distribution_column('leasehold_tool_call', '"
                + key.accountId()
                + "') AND s.table_name = 'leasehold_tool_call'::regclass"
                + " AND o.noderole = 'primary' AND o.groupid <> 0 AND o.nodeport <> s.nodeport"
                + " LIMIT 1");
    call(4);
    call(5);
    call(6);
    assertThat(listed()).containsExactlyElementsOf(journaled);
  }
}
