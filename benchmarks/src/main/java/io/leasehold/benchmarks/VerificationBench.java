package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.LeaseStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/** Token verification costs (group {@code verification}). */
final class VerificationBench extends BenchGroup {
  VerificationBench(BenchGroup.Context context) {
    super(context);
  }

  /**
   * What verifying tokens costs (CONTRACT C15): a signature check of a token the verifier has not
   * seen (HMAC-SHA256, Ed25519), of one it has (a run's repeated writes), and the database writer's
   * transaction with each verification mode side by side. Alone: {@code ...
   * -Dbench.args="group=verification"}.
   */
  void verification() throws Exception {
    line("## Token verification");
    line("");
    line("| benchmark | per operation |");
    line("| --- | --- |");
    LeaseKey key = LeaseKey.of("acct-7", "chat-1");
    for (SignatureScheme scheme : SignatureScheme.values()) {
      SigningKey signing = SigningKey.generate(scheme, "bench");
      TokenKeySet keys = TokenKeySet.of(signing.verificationKey());
      FencingToken[] tokens = new FencingToken[1024];
      for (int k = 0; k < tokens.length; k++) {
        tokens[k] =
            signing.sign(
                new FencingToken(key, k + 1, UUID.randomUUID()),
                Clock.systemUTC(),
                Duration.ofMinutes(5));
      }
      int batch = scheme == SignatureScheme.HMAC_SHA256 ? 1000 : 20;
      List<Throughput.OpFactory> f =
          List.of(
              // A fresh verifier has seen nothing: every check is a real signature check.
              Throughput.batched(
                  batch,
                  k -> TokenVerifier.signedBy(keys).verify(tokens[k & (tokens.length - 1)])));
      double rate = Throughput.interleaved(f, 1, window, windows).get(0).successes() * batch;
      line(
          "| "
              + scheme.textName()
              + " signature check, token not seen before | "
              + fmt(1e6 / rate)
              + " us |");
    }
    SigningKey ed = SigningKey.generate(SignatureScheme.ED25519, "bench");
    TokenVerifier remembering = TokenVerifier.signedBy(TokenKeySet.of(ed.verificationKey()));
    FencingToken repeated =
        ed.sign(
            new FencingToken(key, 7, UUID.randomUUID()), Clock.systemUTC(), Duration.ofMinutes(5));
    List<Throughput.OpFactory> cached =
        List.of(Throughput.batched(1000, k -> remembering.verify(repeated)));
    double cachedRate =
        Throughput.interleaved(cached, 1, window, windows).get(0).successes() * 1000;
    line(
        "| ed25519, the same token again (a run's repeated writes) | "
            + fmt(1e6 / cachedRate)
            + " us |");

    // The database writer on the lease database, one INSERT per transaction, by verification mode.
    HikariDataSource pool = db.pool(4);
    createBenchRows(pool);
    FencingToken token;
    try (LeaseStore store =
        BenchDatabase.storeBuilder(pool, Duration.ofHours(1)).tokenSigningKey(ed).build()) {
      token =
          store
              .tryAcquire(LeaseKey.of("acct-7", "verify-" + UUID.randomUUID()), "bench")
              .acquiredLease()
              .orElseThrow()
              .identity();
    }
    FencedJdbcWriter trusting =
        FencedJdbcWriter.builder(pool).verifier(TokenVerifier.trustEveryWriter()).build();
    FencedJdbcWriter online =
        FencedJdbcWriter.builder(pool).verifyAgainstLeaseTable("leasehold_lease").build();
    FencedJdbcWriter signed =
        FencedJdbcWriter.builder(pool)
            .verifier(TokenVerifier.signedBy(TokenKeySet.of(ed.verificationKey())))
            .build();
    List<Throughput.OpFactory> w =
        List.of(
            Throughput.always(k -> trusting.write(token, (c, t) -> insertRow(c, t.fence()))),
            Throughput.always(k -> online.write(token, (c, t) -> insertRow(c, t.fence()))),
            Throughput.always(k -> signed.write(token, (c, t) -> insertRow(c, t.fence()))));
    List<Throughput.Rate> wr = Throughput.interleaved(w, 1, window, windows);
    line(
        "| database writer, trustEveryWriter() | "
            + fmt(1e6 / wr.get(0).successes())
            + " us ("
            + fmt(wr.get(0).successes())
            + " tx/s) |");
    againstTrusting(
        "database writer, verifyAgainstLeaseTable (in the admission statement)",
        wr.get(1),
        wr.get(0));
    againstTrusting("database writer, signedBy(Ed25519), repeated token", wr.get(2), wr.get(0));
    line("");
  }

  /** A row of a verifying writer's time per write, and its throughput as a ratio of trusting's. */
  private void againstTrusting(String what, Throughput.Rate verifying, Throughput.Rate trusting) {
    line(
        row(
            what,
            fmt(1e6 / verifying.successes())
                + " us ("
                + ratio(verifying.successes(), trusting.successes())
                + " of trusting)"));
  }
}
