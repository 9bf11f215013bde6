package io.leasehold.benchmarks;

import java.time.Duration;
import java.util.List;

/**
 * The statements each lease operation sends, printed as the store builds them (group {@code
 * statements}), so that nobody has to re-derive them from the source: on a pool shared with the
 * application (each statement with its opening) and on a dedicated pool (the timeouts set once per
 * connection).
 */
final class StatementsGroup extends BenchGroup {
  StatementsGroup(BenchGroup.Context context) {
    super(context);
  }

  /**
   * Alone: {@code mvn -q -pl benchmarks -am -DskipTests -Pbench verify
   * -Dbench.args="group=statements"}.
   */
  void statements() {
    line("## The statements of each operation (lock timeout 1 s, statement timeout 5 s)");
    line("");
    for (boolean dedicated : List.of(true, false)) {
      LeaseStatements sql =
          LeaseStatements.of(Duration.ofSeconds(1), Duration.ofSeconds(5), false, dedicated);
      line(
          "### "
              + (dedicated
                  ? "Dedicated pool (`dedicatedPool(true)`)"
                  : "Shared pool (the default)"));
      line("");
      if (dedicated) {
        statement("once per connection", sql.sessionTimeouts());
      }
      statement(
          "acquire (a key the store has not met yet; a refusal is this statement alone)",
          sql.acquire());
      statement(
          "acquire on one PostgreSQL, of a key the store was granted and has not found taken since:"
              + " the update alone (no row: the acquire above follows, and the key counts as taken)",
          sql.grantIfFree());
      statement(
          "acquire on one PostgreSQL, of a key the store found taken: the key's row first, the"
              + " answer (Busy) while it shows the key held or draining; otherwise the first acquire above"
              + " follows",
          sql.readFirst());
      statement("acquire, a key's first (only when acquire found no row)", sql.acquireNew());
      statement("release (its commit does not wait for the WAL flush)", sql.release());
      if (dedicated) {
        statement(
            "on a Citus coordinator, acquire and release in the forms Citus accepts (same"
                + " parameters and columns; each in a transaction block behind the Citus opening)",
            sql.acquireOnCitus() + "; " + sql.releaseOnCitus());
      }
      statement(
          "release holding the key until an instant (`releaseHolding`, a durable commit)",
          sql.releaseHolding());
      statement("status", sql.status());
      statement("renew (kept leases, many per statement)", sql.renew());
      LeaseStatements publishing =
          LeaseStatements.of(Duration.ofSeconds(1), Duration.ofSeconds(5), true, dedicated);
      statement(
          "publishing store (`notifyChanges(true)`): the acquire gains `took_over` as a ninth column, and the"
              + " store's publisher thread sends the queued changes after they committed",
          publishing.publish());
    }
  }

  private void statement(String what, String text) {
    line("- " + what + ":");
    line("");
    line("  ```sql");
    for (String part : text.split("; ")) {
      line("  " + part + ";");
    }
    line("  ```");
    line("");
  }
}
