package io.leasehold.adapters.internal;

import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The admission of a {@link SqlMarkStore} whose marks have evidence (the tool journal's): the key's
 * row read under its lock and checked in Java, then raised by a plain update, or a key's first row
 * inserted if its evidence allows. Not the store's single admission statement, whose {@code ON
 * CONFLICT} clause checks the evidence with a subquery: Citus refuses that (the subquery reaches
 * the worker unrouted, docs/scale-out.md). Every statement here names the key by its parameters. On
 * one PostgreSQL it is as many round trips as before: the locked read and one write.
 */
final class EvidenceAdmission {
  private final SqlMarkStore marks;

  /**
   * A key's first mark, if nothing was admitted for it (its evidence, counted from sequence 0, is
   * at most 0); nothing if a row exists. Parameters: account, session, fence, account, session.
   */
  private final String insertFirst;

  /** A locked, checked row's new mark. Parameters: fence, account, session. */
  private final String raiseLocked;

  /**
   * @param key the condition on {@code m} that names the key by two parameters
   */
  EvidenceAdmission(SqlMarkStore marks, SqlMarkShape shape, String key) {
    this.marks = marks;
    String text = "?::pg_catalog.text";
    this.insertFirst =
        "INSERT INTO "
            + marks.table()
            + " AS m (account_id, session_id, fence) SELECT k.account_id, k.session_id, k.fence"
            + " FROM (VALUES ("
            + text
            + ", "
            + text
            + ", ?::pg_catalog.int8)) AS k(account_id, session_id, fence) WHERE "
            + SqlMarkShape.trusted("0", shape.evidence(text, text, "0"))
            + " ON CONFLICT (account_id, session_id) DO NOTHING RETURNING 1";
    this.raiseLocked =
        "UPDATE " + marks.table() + " AS m SET fence = ?::pg_catalog.int8 WHERE " + key;
  }

  /**
   * The journal's admission: the locked row checked here, then a plain raise; a key without a row
   * gets its first, and if another transaction inserted one meanwhile (or the key's evidence
   * refuses the insert), the row is read again under its lock, once.
   */
  Admission admit(Connection unit, FencingToken token) throws SQLException {
    LeaseKey key = token.key();
    for (int attempt = 0; attempt < 2; attempt++) {
      Optional<SqlMarkRow> row = marks.lockedRow(unit, key);
      if (row.isEmpty()) {
        try (PreparedStatement ps = SqlMarkStore.keyed(unit, insertFirst, key)) {
          ps.setLong(3, token.fence());
          ps.setString(4, key.accountId());
          ps.setString(5, key.sessionId());
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
              return new Admission(token, 0);
            }
          }
        }
        continue;
      }
      long previous = row.get().mark();
      row.get().requireTrusted(marks.table(), key);
      if (token.fence() < previous) {
        throw new StaleFenceException(token, previous);
      }
      if (token.fence() > previous) {
        try (PreparedStatement ps = unit.prepareStatement(raiseLocked)) {
          ps.setLong(1, token.fence());
          ps.setString(2, key.accountId());
          ps.setString(3, key.sessionId());
          if (ps.executeUpdate() != 1) { // the row is locked: only damage to the table gets here
            throw marks.unexplained(token);
          }
        }
      }
      return new Admission(token, previous);
    }
    throw marks.refusal(unit, token).orElseThrow(() -> marks.unexplained(token));
  }
}
