package io.leasehold.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.SingleServerOnly;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The acquire and the release have two texts: one for one PostgreSQL, and the forms a Citus
 * coordinator accepts ({@link AcquireStatements#acquireOnCitus}, {@link
 * ReleaseStatements#releaseOnCitus}). CI has no Citus, so both run here on one PostgreSQL, the
 * Citus forms through a runner that sends them as it does on a coordinator (in a transaction block
 * behind the Citus opening): each must grant, refuse with the holder, release and grant again with
 * a higher fence, and set the expiry to exactly the start plus the TTL.
 */
@SingleServerOnly(
    "Citus refuses one PostgreSQL's texts by design (a volatile function in an UPDATE); on a"
        + " coordinator the store's own suites run the Citus texts")
class StatementFormsTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final Duration TTL = Duration.ofSeconds(30);

  @Test
  void theTwoFormsAreDifferentTexts() {
    StatementSettings settings = settings();
    ReadStatements reads = new ReadStatements(null, settings, Duration.ZERO);
    AcquireStatements acquires = new AcquireStatements(null, settings, reads, false, Duration.ZERO);
    ReleaseStatements releases = new ReleaseStatements(null, settings, reads);
    assertThat(acquires.acquire).isNotEqualTo(acquires.acquireOnCitus);
    assertThat(releases.release).isNotEqualTo(releases.releaseOnCitus);
  }

  @ParameterizedTest(name = "sent as on Citus: {0}")
  @ValueSource(booleans = {false, true})
  void grantRefuseReleaseAndGrantAgain(boolean asOnCitus) throws Exception {
    Statements statements = statements(asOnCitus, false);
    AcquireStatements acquires = statements.acquires();
    ReleaseStatements releases = statements.releases();
    LeaseKey key = LeaseKey.of("acct", "forms-" + asOnCitus);

    // The key's first acquire inserts its row; from then on the acquire statement answers.
    UUID first = UUID.randomUUID();
    var firstGrant = (AcquireStatements.Granted) acquires.acquire(key, first, "first", TTL);
    var refused = (AcquireStatements.Refused) acquires.acquire(key, UUID.randomUUID(), "x", TTL);
    assertThat(refused.seen().state()).isEqualTo(LeaseStatus.State.HELD);
    LeaseOwner holder = refused.seen().owner().orElseThrow();
    assertThat(holder.runId()).isEqualTo(first);
    assertThat(holder.fence()).isEqualTo(firstGrant.fence());
    assertThat(holder.holder()).isEqualTo("first");

    ReleaseResult released =
        releases.release(new FencingToken(key, firstGrant.fence(), first), Optional.empty());
    assertThat(released.outcome()).isEqualTo(ReleaseResult.Outcome.RELEASED);
    assertThat(
            releases
                .release(new FencingToken(key, firstGrant.fence(), first), Optional.empty())
                .outcome())
        .isEqualTo(ReleaseResult.Outcome.NOT_HELD);

    UUID second = UUID.randomUUID();
    var secondGrant = (AcquireStatements.Granted) acquires.acquire(key, second, "second", TTL);
    assertThat(secondGrant.fence()).isGreaterThan(firstGrant.fence());
    assertThat(secondGrant.acquiredAt()).isAfterOrEqualTo(released.databaseNow().orElseThrow());
    assertThat(secondGrant.tookOver()).isFalse();

    List<List<Object>> row =
        Sql.query(
            db.dataSource(),
            "SELECT run_id, fence, holder, acquired_at, expires_at, released_at FROM leasehold_lease"
                + " WHERE account_id = ? AND session_id = ?",
            key.accountId(),
            key.sessionId());
    assertThat(row).hasSize(1);
    assertThat(row.get(0).get(0)).isEqualTo(second);
    assertThat(row.get(0).get(1)).isEqualTo(secondGrant.fence());
    assertThat(row.get(0).get(2)).isEqualTo("second");
    Instant acquiredAt = instant(row.get(0).get(3));
    assertThat(acquiredAt).isEqualTo(secondGrant.acquiredAt());
    assertThat(instant(row.get(0).get(4))).isEqualTo(acquiredAt.plus(TTL));
    assertThat(row.get(0).get(5)).isNull();
  }

  @Test
  void theUpdateAloneGrantsAFreeRowOnlyAndDrawsNoFenceOtherwise() throws Exception {
    Statements statements = statements(false, true);
    StatementRunner runner = statements.runner();
    AcquireStatements acquires = statements.acquires();
    ReleaseStatements releases = statements.releases();
    LeaseKey key = LeaseKey.of("acct", "forms-update-alone");
    UUID first = UUID.randomUUID();
    var firstGrant = (AcquireStatements.Granted) acquires.acquire(key, first, "first", TTL);

    long drawn = lastFence();
    assertThat(updateAlone(runner, acquires, key, UUID.randomUUID())).isEmpty();
    assertThat(lastFence()).as("a taken row draws no fence").isEqualTo(drawn);

    releases.release(new FencingToken(key, firstGrant.fence(), first), Optional.empty());
    UUID second = UUID.randomUUID();
    List<Object> granted = updateAlone(runner, acquires, key, second);
    assertThat(granted).hasSize(3);
    long fence = ((Number) granted.get(0)).longValue();
    assertThat(fence).isGreaterThan(firstGrant.fence());
    assertThat(granted.get(2)).as("released, not taken over").isEqualTo(false);
    List<Object> row =
        Sql.query(
                db.dataSource(),
                "SELECT run_id, fence, holder, acquired_at, expires_at, released_at, took_over"
                    + " FROM leasehold_lease WHERE account_id = ? AND session_id = ?",
                key.accountId(),
                key.sessionId())
            .get(0);
    assertThat(row.get(0)).isEqualTo(second);
    assertThat(row.get(1)).isEqualTo(fence);
    assertThat(row.get(2)).isEqualTo("update-alone");
    assertThat(instant(row.get(3))).isEqualTo(instant(granted.get(1)));
    assertThat(instant(row.get(4))).isEqualTo(instant(granted.get(1)).plus(TTL));
    assertThat(row.get(5)).isNull();
    assertThat(row.get(6)).isEqualTo(false);
  }

  /** Runs {@link AcquireStatements#grantIfFree}: its row's columns if it granted, none if not. */
  private static List<Object> updateAlone(
      StatementRunner runner, AcquireStatements acquires, LeaseKey key, UUID runId) {
    return runner.execute(
        acquires.grantIfFree,
        () -> "update alone",
        ps ->
            AcquireStatements.bindGrantIfFree(
                ps, key, runId, "update-alone", TTL.toNanos() / 1000, 0),
        (rs, opened) ->
            rs.next() ? List.of(rs.getObject(1), rs.getObject(2), rs.getObject(3)) : List.of());
  }

  private static long lastFence() throws Exception {
    return ((Number)
            Sql.query(db.dataSource(), "SELECT last_value FROM leasehold_fence_seq").get(0).get(0))
        .longValue();
  }

  @Test
  void aKeyFoundTakenIsReadFirstUntilGrantedTwiceInARowAndTheMapStaysBounded() {
    AcquireForms forms = new AcquireForms(3);
    LeaseKey a = LeaseKey.of("acct", "a");
    LeaseKey b = LeaseKey.of("acct", "b");
    assertThat(forms.formOf(a)).as("a key not met yet").isEqualTo(AcquireForms.Form.FULL);
    forms.granted(a);
    assertThat(forms.formOf(a)).isEqualTo(AcquireForms.Form.UPDATE_ALONE);
    forms.taken(a);
    assertThat(forms.formOf(a)).as("found taken").isEqualTo(AcquireForms.Form.READ_FIRST);
    forms.granted(a);
    assertThat(forms.formOf(a)).as("granted once since").isEqualTo(AcquireForms.Form.READ_FIRST);
    forms.taken(a);
    forms.granted(a);
    assertThat(forms.formOf(a)).as("taken in between").isEqualTo(AcquireForms.Form.READ_FIRST);
    forms.granted(a);
    assertThat(forms.formOf(a))
        .as("granted twice in a row")
        .isEqualTo(AcquireForms.Form.UPDATE_ALONE);
    forms.granted(b);
    forms.granted(LeaseKey.of("acct", "c"));
    assertThat(forms.size()).isEqualTo(3);
    forms.granted(LeaseKey.of("acct", "d"));
    assertThat(forms.size()).as("emptied at capacity, then the new key").isEqualTo(1);
    assertThat(forms.formOf(b)).isEqualTo(AcquireForms.Form.FULL);
    assertThat(forms.formOf(LeaseKey.of("acct", "d"))).isEqualTo(AcquireForms.Form.UPDATE_ALONE);
  }

  /** The statements of a store on the test database, sent as to Citus or to one PostgreSQL. */
  private record Statements(
      StatementRunner runner, AcquireStatements acquires, ReleaseStatements releases) {}

  private static Statements statements(boolean asOnCitus, boolean publishing) {
    StatementSettings settings = settings();
    StatementRunner runner = new StatementRunner(db.dataSource(), settings, asOnCitus);
    ReadStatements reads = new ReadStatements(runner, settings, Duration.ZERO);
    return new Statements(
        runner,
        new AcquireStatements(runner, settings, reads, publishing, Duration.ZERO),
        new ReleaseStatements(runner, settings, reads));
  }

  private static StatementSettings settings() {
    return new StatementSettings(
        LeaseSchema.defaults(), Duration.ofSeconds(1), Duration.ofSeconds(5), true);
  }

  private static Instant instant(Object value) {
    return value instanceof OffsetDateTime o
        ? o.toInstant()
        : ((java.sql.Timestamp) value).toInstant();
  }
}
