package io.leasehold.benchmarks;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenSignature;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.Function;

/**
 * What a flood of forged and of valid tokens costs one guard on one core (CONTRACT C21, issue 27
 * finding 7), group {@code flood}: an {@link InMemoryFenceGuard} verifying Ed25519 signatures
 * admits or refuses each token of a batch of distinct ones, on one thread. Alone: {@code ...
 * -Dbench.args="group=flood"}.
 */
final class FloodBench extends BenchGroup {
  FloodBench(BenchGroup.Context context) {
    super(context);
  }

  void flood() throws Exception {
    line("## Floods of forged and valid tokens, one guard, one thread (Ed25519)");
    line("");
    line("| tokens presented | per token | tokens/s per core |");
    line("| --- | --- | --- |");
    SigningKey signing = SigningKey.generate(SignatureScheme.ED25519, "bench");
    SigningKey stranger = SigningKey.generate(SignatureScheme.ED25519, "bench");
    Random random = new Random(27);
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    LeaseKey key = LeaseKey.of("acct-7", "flood");
    Function<Long, FencingToken> unsigned = f -> new FencingToken(key, f, UUID.randomUUID());
    cell(
        "valid, each token new (a signature check each)",
        f -> signing.sign(unsigned.apply(f), Clock.systemUTC(), Duration.ofMinutes(5)),
        signing);
    cell(
        "forged: signed by a key of the same id (full check)",
        f -> stranger.sign(unsigned.apply(f), Clock.systemUTC(), Duration.ofMinutes(5)),
        signing);
    cell(
        "forged: unknown key id (refused before the cryptography)",
        f ->
            unsigned
                .apply(f)
                .withSignature(
                    new TokenSignature("nobody", now, now.plusSeconds(60), garbage(random, 64))),
        signing);
    cell(
        "forged: signature of the wrong length (refused before the cryptography)",
        f ->
            unsigned
                .apply(f)
                .withSignature(
                    new TokenSignature("bench", now, now.plusSeconds(60), garbage(random, 16))),
        signing);
    cell(
        "replayed: expired window (refused before the cryptography)",
        f -> signing.sign(unsigned.apply(f), now.minusSeconds(600), now.minusSeconds(300)),
        signing);
    line("");
    line(
        "A forged token with a well-formed Ed25519 signature of the right length under a known key id"
            + " costs a full signature check; every other forgery, and every expired replay, is refused"
            + " by lookups. Refusals add nothing to the guard (its mark is unchanged).");
    line("");
  }

  private static String garbage(Random random, int bytes) {
    byte[] b = new byte[bytes];
    random.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  private void cell(String name, Function<Long, FencingToken> make, SigningKey trusted)
      throws Exception {
    // Distinct tokens, signed up front (Ed25519 signing dominates the set-up): enough that a
    // measured window rarely starts a new pass; a smoke run's short window needs few.
    int n = window.compareTo(Duration.ofSeconds(1)) < 0 ? 256 : 2048;
    FencingToken[] tokens = new FencingToken[n];
    for (int i = 0; i < n; i++) {
      tokens[i] = make.apply((long) i + 1);
    }
    TokenKeySet keys = TokenKeySet.of(trusted.verificationKey());
    InMemoryFenceGuard[] guard = {null};
    int batch = 64;
    List<Throughput.OpFactory> f =
        List.of(
            Throughput.batched(
                batch,
                count -> {
                  int k = count % n;
                  if (k == 0) {
                    // A new guard each pass: its verifier has seen none of the tokens, its marks
                    // are 0.
                    guard[0] =
                        InMemoryFenceGuard.builder().verifier(TokenVerifier.signedBy(keys)).build();
                  }
                  try {
                    guard[0].admit(tokens[k]);
                  } catch (TokenVerificationException e) {
                    // the refusal being measured
                  }
                }));
    double rate = Throughput.interleaved(f, 1, window, windows).get(0).successes() * batch;
    line("| " + name + " | " + fmt(1e6 / rate) + " us | " + fmt(rate) + " |");
  }
}
