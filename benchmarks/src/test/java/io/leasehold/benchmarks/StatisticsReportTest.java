package io.leasehold.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The peers group's per-attempt figures are exact only if {@link PeersContenders#report} makes
 * every connection of a pool report what it has pending, at once: no pause lets the server's
 * once-a-second reporting do it instead.
 */
class StatisticsReportTest {
  @Test
  void aReportMakesEveryConnectionsPendingStatisticsVisibleAtOnce() throws Exception {
    try (BenchDatabase db = new BenchDatabase(Optional.empty(), Optional.empty());
        Connection reader = db.connection()) {
      HikariDataSource pool = db.defaultPool(CountingSocketFactory.class);
      List<Connection> three = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          Connection c = pool.getConnection();
          three.add(c);
          try (Statement s = c.createStatement()) {
            // The first statement of a backend reports when it ends (it never reported before);
            // the insert right after it waits for a report a second later.
            s.execute("CREATE TABLE IF NOT EXISTS reported (connection int)");
            s.execute("INSERT INTO reported VALUES (" + i + ")");
          }
        }
      } finally {
        for (Connection c : three) {
          c.close();
        }
      }
      long before = inserted(reader);

      PeersContenders.report(pool);

      assertThat(before).as("inserts reported before the report").isLessThan(3);
      assertThat(inserted(reader)).as("inserts reported after it").isEqualTo(3);
      db.closeOpened();
    }
  }

  private static long inserted(Connection c) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables"
                    + " WHERE relname = 'reported'")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
