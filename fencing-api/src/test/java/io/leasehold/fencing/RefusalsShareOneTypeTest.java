package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 3: a quick start had to catch three unrelated exception types to handle every
 * refusal. Each refusal is now a {@link WriteRefusedException}, its subtype saying which, and the
 * write did not run.
 */
class RefusalsShareOneTypeTest {
  private static final LeaseKey KEY = LeaseKey.of("acct", "chat");

  @Test
  void everyRefusalIsCaughtAsOneTypeAndSaysWhichItWas() {
    SigningKey key = SigningKey.generate(SignatureScheme.HMAC_SHA256, "k1");
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder()
            .verifier(TokenVerifier.signedBy(TokenKeySet.of(key.verificationKey())))
            .build();
    FencingToken ten = new FencingToken(KEY, 10, UUID.randomUUID());
    guard.admit(key.sign(ten, java.time.Clock.systemUTC(), java.time.Duration.ofMinutes(1)));
    AtomicInteger ran = new AtomicInteger();

    Fenced stale =
        () ->
            key.sign(
                new FencingToken(KEY, 5, UUID.randomUUID()),
                java.time.Clock.systemUTC(),
                java.time.Duration.ofMinutes(1));
    Fenced lost =
        () -> {
          throw new LeaseLostException(ten, "renewal failed");
        };
    Fenced unsigned = () -> new FencingToken(KEY, 11, UUID.randomUUID());

    assertThat(refusal(guard, stale, ran)).isInstanceOf(StaleFenceException.class);
    assertThat(refusal(guard, lost, ran)).isInstanceOf(LeaseLostException.class);
    assertThat(refusal(guard, unsigned, ran)).isInstanceOf(TokenVerificationException.class);
    assertThat(ran).hasValue(0);
    assertThat(guard.highWaterMark(KEY)).hasValue(10);
  }

  @Test
  void errorsOfTheResourceAreNotRefusals() {
    assertThat(WriteRefusedException.class).isAssignableFrom(StaleFenceException.class);
    assertThat(WriteRefusedException.class.isAssignableFrom(AdminDeniedException.class)).isFalse();
    assertThat(LeaseholdException.class).isAssignableFrom(WriteRefusedException.class);
  }

  private static WriteRefusedException refusal(
      InMemoryFenceGuard guard, Fenced fenced, AtomicInteger ran) {
    return catchThrowableOfType(
        () -> guard.runFenced(fenced, ran::incrementAndGet), WriteRefusedException.class);
  }
}
