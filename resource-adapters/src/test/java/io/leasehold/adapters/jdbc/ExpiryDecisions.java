package io.leasehold.adapters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Every guard on the lease database that decides by a lease's expiry (CONTRACT C2, C15, strict
 * mode), for one token: the strict writer and the online-verifying writer in both admission modes,
 * and {@link LeaseTableVerifier}. Shared by the test of the Citus form on PostgreSQL and the test
 * on a Citus cluster whose worker's clock is behind.
 */
final class ExpiryDecisions {
  private ExpiryDecisions() {}

  /** The guards, named; {@code citusForm} forces the writers' Citus form on any database. */
  private static List<Guard> guards(DataSource ds, boolean citusForm) {
    List<Guard> guards = new ArrayList<>();
    for (boolean atCommit : new boolean[] {false, true}) {
      FencedJdbcWriter.Builder strict =
          FencedJdbcWriter.builder(ds)
              .verifier(TokenVerifier.trustEveryWriter())
              .admitAtCommit(atCommit)
              .strictLeaseTable("leasehold_lease");
      FencedJdbcWriter.Builder online =
          FencedJdbcWriter.builder(ds)
              .admitAtCommit(atCommit)
              .verifyAgainstLeaseTable("leasehold_lease");
      if (citusForm) {
        strict.citusForm();
        online.citusForm();
      }
      FencedJdbcWriter s = strict.build();
      FencedJdbcWriter o = online.build();
      guards.add(new Guard("strict writer, at commit " + atCommit, t -> s.write(t, (c, x) -> 1)));
      guards.add(new Guard("online writer, at commit " + atCommit, t -> o.write(t, (c, x) -> 1)));
    }
    LeaseTableVerifier verifier = LeaseTableVerifier.of(ds, "leasehold_lease");
    guards.add(new Guard("LeaseTableVerifier", verifier::verify));
    return guards;
  }

  /** Every guard admits the token of a live lease. */
  static void allAdmit(DataSource ds, FencingToken token, boolean citusForm) {
    for (Guard g : guards(ds, citusForm)) {
      assertThatCode(() -> g.use().accept(token)).as(g.name()).doesNotThrowAnyException();
    }
  }

  /** Every guard refuses the token of an expired lease, each as an expired run. */
  static void allRefuse(DataSource ds, FencingToken token, boolean citusForm) {
    for (Guard g : guards(ds, citusForm)) {
      Throwable thrown = catchThrowable(() -> g.use().accept(token));
      if (g.name().startsWith("strict")) {
        assertThat(thrown).as(g.name()).isInstanceOf(LeaseLostException.class);
      } else {
        assertThat(thrown)
            .as(g.name())
            .isInstanceOfSatisfying(
                TokenVerificationException.class,
                e -> assertThat(e.reason()).isEqualTo(TokenVerificationException.Reason.EXPIRED));
      }
    }
  }

  @FunctionalInterface
  interface Use {
    void accept(FencingToken token) throws Exception;
  }

  record Guard(String name, Use use) {}
}
