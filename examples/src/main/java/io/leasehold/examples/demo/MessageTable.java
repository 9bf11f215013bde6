package io.leasehold.examples.demo;

import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.HighWaterSchema;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.TokenVerifier;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * A demo's table of messages in the resource database, appended to only through a fenced JDBC
 * writer: each row is inserted in the transaction that admits its token, so a stale device's insert
 * never commits. The two-process demo and the web demo each keep one.
 */
public final class MessageTable {
  /**
   * Reads one row of a query.
   *
   * @param <T> the row's value
   */
  @FunctionalInterface
  public interface RowReader<T> {
    /**
     * Reads the current row.
     *
     * @param rs the result set, on the row
     * @return the value
     * @throws SQLException if a column cannot be read
     */
    T read(ResultSet rs) throws SQLException;
  }

  private final DataSource db;
  private final FencedJdbcWriter writer;

  /**
   * Creates the high-water table and the message table where they are missing.
   *
   * @param db the resource database
   * @param verifier what the writer checks tokens with
   * @param createTable the message table's {@code CREATE TABLE IF NOT EXISTS} statement
   */
  public MessageTable(DataSource db, TokenVerifier verifier, String createTable) {
    this.db = db;
    HighWaterSchema.defaults().apply(db);
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute(createTable);
    } catch (SQLException e) {
      throw new IllegalStateException("could not create the demo's message table", e);
    }
    this.writer = FencedJdbcWriter.builder(db).verifier(verifier).build();
  }

  /**
   * The fenced writer the rows go through.
   *
   * @return the writer
   */
  public FencedJdbcWriter writer() {
    return writer;
  }

  /**
   * Inserts one row in the transaction that admits the writer's token.
   *
   * @param fenced the writer
   * @param insert the {@code INSERT} statement, its values as {@code ?} parameters
   * @param values the parameters' values, in order, from the admitted token
   * @return rows inserted
   */
  public int insert(Fenced fenced, String insert, Function<FencingToken, List<?>> values) {
    return writer.write(
        fenced,
        (c, token) -> {
          try (PreparedStatement ps = c.prepareStatement(insert)) {
            List<?> bound = values.apply(token);
            for (int i = 0; i < bound.size(); i++) {
              ps.setObject(i + 1, bound.get(i));
            }
            return ps.executeUpdate();
          }
        });
  }

  /**
   * Every row of a query, outside any fenced transaction (for the demo's report and its tests).
   *
   * @param <T> a row's value
   * @param query the {@code SELECT}
   * @param reader reads one row
   * @return the rows, in the query's order
   */
  public <T> List<T> query(String query, RowReader<T> reader) {
    List<T> rows = new ArrayList<>();
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      while (rs.next()) {
        rows.add(reader.read(rs));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the demo's messages", e);
    }
    return rows;
  }
}
