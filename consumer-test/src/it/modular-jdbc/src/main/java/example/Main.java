package example;

import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.HighWaterSchema;
import io.leasehold.devdb.LocalPostgres;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;

/** The database writer on the module path: a fenced row written, a stale write rolled back. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    try (LocalPostgres pg = LocalPostgres.start();
        Connection c = pg.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(HighWaterSchema.defaults().sqlScript());
      s.execute("CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)");
      FencedJdbcWriter writer =
          FencedJdbcWriter.builder(pg.dataSource()).verifier(TokenVerifier.trustEveryWriter()).build();
      LeaseKey key = LeaseKey.of("acct-7", "chat-1");
      writer.write(new FencingToken(key, 5, UUID.randomUUID()), (tx, token) -> upsert(tx, "five"));
      String refused;
      try {
        writer.write(new FencingToken(key, 3, UUID.randomUUID()), (tx, token) -> upsert(tx, "three"));
        throw new AssertionError("fence 3 was admitted after fence 5");
      } catch (StaleFenceException e) {
        refused = e.getClass().getSimpleName();
      }
      try (ResultSet rs = s.executeQuery("SELECT body FROM notes WHERE id = 1")) {
        rs.next();
        System.out.println("MODULAR JDBC OK: fence 5 wrote '" + rs.getString(1) + "', fence 3 refused (" + refused
            + "), mark " + writer.highWaterMark(key).getAsLong());
      }
    }
  }

  private static Void upsert(Connection c, String body) throws java.sql.SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO notes VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body")) {
      ps.setString(1, body);
      ps.executeUpdate();
    }
    return null;
  }
}
