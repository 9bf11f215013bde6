package io.leasehold.adapters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.mark.MarkStoreException;
import io.leasehold.testing.TestDatabaseExtension;
import java.text.Normalizer;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 47: the high-water table and the tool journal's mark table share one SQL mark store, so the
 * journal's rule that a negative mark is no mark (issue 27) now holds for the database writer too.
 * Before, with the table's CHECK dropped and a mark set to -5 by hand, the writer admitted fence 3
 * and overwrote the damage; now every admission of the key refuses until an operator resets the
 * mark, whichever way it is sent.
 */
class UntrustedHighWaterMarksTest {
  @RegisterExtension static final TestDatabaseExtension db = JdbcTestSchema.extension();

  private final LeaseKey key = LeaseKey.of("acct", "negative-" + UUID.randomUUID());

  private FencedJdbcWriter writer(boolean admitAtCommit) {
    return JdbcTestSchema.trustingWriter(db.dataSource(), admitAtCommit)
        .adminPolicy(AdminPolicy.operators(Set.of("ops")))
        .build();
  }

  private FencingToken token(long fence) {
    return new FencingToken(key, fence, UUID.randomUUID());
  }

  @Test
  void aNegativeMarkRefusesEveryAdmissionUntilReset() {
    FencedJdbcWriter first = writer(false);
    FencedJdbcWriter atCommit = writer(true);
    first.write(token(2), (c, t) -> null);
    db.database()
        .execute(
            "ALTER TABLE leasehold_high_water DROP CONSTRAINT leasehold_high_water_fence_check");
    try {
      db.database()
          .execute(
              "UPDATE leasehold_high_water SET fence = -5 WHERE account_id = '"
                  + key.accountId()
                  + "' AND session_id = '"
                  + key.sessionId()
                  + "'");
      for (Runnable admission :
          new Runnable[] {
            () -> first.write(token(3), (c, t) -> null),
            () -> atCommit.write(token(3), (c, t) -> null),
            () -> first.admit(token(3))
          }) {
        assertThatThrownBy(admission::run)
            .isInstanceOf(MarkStoreException.class)
            .hasMessageContaining("holds -5, which is not a fence")
            .hasMessageContaining("resetMark");
      }
      assertThat(first.highWaterMark(key)).hasValue(-5);

      // The reset is the repair: it records the damaged mark as 0 and the fence rule applies again.
      assertThat(first.resetMark(key, 2, "ops", "mark set to -5 by hand").previousMark()).isZero();
      atCommit.write(token(3), (c, t) -> null);
      assertThat(first.highWaterMark(key)).hasValue(3);
    } finally {
      db.database()
          .execute(
              "DELETE FROM leasehold_high_water WHERE fence < 0; ALTER TABLE leasehold_high_water"
                  + " ADD CONSTRAINT leasehold_high_water_fence_check CHECK (fence > 0)");
    }
  }

  /**
   * Red team 47, B5: a damaged row of the writer's reset audit is named with its table, id and
   * repair, not thrown as a bare IllegalArgumentException; the writer's admissions go on.
   */
  @Test
  void aDamagedResetRowIsNamedWithItsRepair() {
    FencedJdbcWriter writer = writer(false);
    writer.write(token(2), (c, t) -> null);
    db.database()
        .execute(
            "INSERT INTO leasehold_high_water_audit (id, at, operator, account_id, session_id,"
                + " previous_mark, new_mark, reason) VALUES (900001, now(), 'ops', '', '', 1, 2,"
                + " 'blank key')");
    try {
      assertThatThrownBy(writer::markResets)
          .isInstanceOf(MarkStoreException.class)
          .hasMessageContaining("row id 900001 of public.leasehold_high_water_audit")
          .hasMessageContaining("DELETE FROM public.leasehold_high_water_audit WHERE id = 900001");
      writer.write(token(3), (c, t) -> null);
      assertThat(writer.highWaterMark(key)).hasValue(3);
    } finally {
      db.database().execute("DELETE FROM leasehold_high_water_audit WHERE id = 900001");
    }
  }

  /**
   * Red team 47b: keys whose parts collide when joined, normalised, trimmed or case-folded are
   * separate keys of the SQL mark store, in both admission modes: a high mark of one never refuses
   * the other.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("collidingKeys")
  void oddlyCollidingKeysKeepTheirOwnMarks(String name, LeaseKey high, LeaseKey low) {
    for (boolean atCommit : new boolean[] {false, true}) {
      FencedJdbcWriter writer = writer(atCommit);
      String suffix = atCommit ? "@c" : "@f";
      LeaseKey h = LeaseKey.of(high.accountId(), high.sessionId() + suffix);
      LeaseKey l = LeaseKey.of(low.accountId(), low.sessionId() + suffix);
      writer.write(new FencingToken(h, 1000, UUID.randomUUID()), (c, t) -> null);
      writer.write(new FencingToken(l, 1, UUID.randomUUID()), (c, t) -> null);
      assertThat(writer.highWaterMark(h)).as(name).hasValue(1000);
      assertThat(writer.highWaterMark(l)).as(name).hasValue(1);
    }
  }

  static Stream<Arguments> collidingKeys() {
    String nfc = Normalizer.normalize("caf\u00e9", Normalizer.Form.NFC);
    String nfd = Normalizer.normalize("caf\u00e9", Normalizer.Form.NFD);
    String longA = "a".repeat(LeaseKey.MAX_LENGTH);
    return Stream.of(
        Arguments.of("separator shift", LeaseKey.of("acct", "x|y"), LeaseKey.of("acct|x", "y")),
        Arguments.of("separator shift 2", LeaseKey.of("a:b", "c"), LeaseKey.of("a", "b:c")),
        Arguments.of("NFC vs NFD account", LeaseKey.of(nfc, "s"), LeaseKey.of(nfd, "s")),
        Arguments.of("case", LeaseKey.of("Acct", "s"), LeaseKey.of("acct", "s")),
        Arguments.of("trailing space", LeaseKey.of("acct ", "s"), LeaseKey.of("acct", "s")),
        Arguments.of("same session other account", LeaseKey.of("a1", "s"), LeaseKey.of("a2", "s")),
        Arguments.of(
            "max length, last char differs",
            LeaseKey.of(longA, "s"),
            LeaseKey.of(longA.substring(1) + "b", "s")),
        Arguments.of(
            "astral chars", LeaseKey.of("\uD83D\uDE00", "s"), LeaseKey.of("\uD83D\uDE01", "s")),
        Arguments.of("like wildcard", LeaseKey.of("a%", "s"), LeaseKey.of("ab", "s")),
        Arguments.of("backslash", LeaseKey.of("a\\", "s"), LeaseKey.of("a", "\\s")));
  }
}
