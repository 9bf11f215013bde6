package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Issue 26: the guard as a type. A third-party guard's builder gets the shared options, their
 * checks and the decision reporting by extending {@link GuardBuilder}; this one is only a builder,
 * to show what a new guard gets without writing it.
 */
class GuardBuilderTest {
  private static final LeaseKey KEY = LeaseKey.of("acct", "sess");

  /** A guard's builder as a plug-in writes it: its own option, and {@code self()}. */
  static final class ThirdPartyBuilder extends GuardBuilder<ThirdPartyBuilder> {
    private int ownOption;

    ThirdPartyBuilder ownOption(int value) {
      this.ownOption = value;
      return this;
    }

    @Override
    protected ThirdPartyBuilder self() {
      return this;
    }

    GuardOptions build() {
      return options("third-party");
    }
  }

  @Test
  void sharedOptionsChainWithTheGuardsOwnAndAreCopiedAtBuild() {
    List<String> heard = new ArrayList<>();
    Clock clock = Clock.fixed(Instant.parse("2026-12-03T10:00:00Z"), ZoneOffset.UTC);
    ThirdPartyBuilder builder =
        new ThirdPartyBuilder()
            .verifier(TokenVerifier.trustEveryWriter())
            .ownOption(3)
            .listener((resource, decision) -> heard.add(resource + ":" + decision))
            .adminPolicy(AdminPolicy.operators(Set.of("ops")))
            .clock(clock);
    GuardOptions options = builder.build();
    builder.clock(Clock.systemUTC()).adminPolicy(AdminPolicy.nobody());

    assertThat(builder.ownOption).isEqualTo(3);
    assertThat(options.resource()).isEqualTo("third-party");
    assertThat(options.clock()).isSameAs(clock);
    assertThat(options.adminPolicy().mayResetMark("ops", KEY)).isTrue();
    options.report(GuardListener.Decision.ADMITTED);
    assertThat(heard).containsExactly("third-party:ADMITTED");
  }

  @Test
  void aGuardWithoutAVerifierIsNotBuiltAndTheErrorNamesTheChoices() {
    assertThatThrownBy(() -> new ThirdPartyBuilder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("TokenVerifier.signedBy")
        .hasMessageContaining("trustEveryWriter");
    assertThatThrownBy(() -> new ThirdPartyBuilder().verifier(null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ThirdPartyBuilder().listener(null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ThirdPartyBuilder().adminPolicy(null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ThirdPartyBuilder().clock(null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static <T> T rethrow(Throwable thrown) {
    if (thrown instanceof Error e) {
      throw e;
    }
    throw (RuntimeException) thrown;
  }

  /** An exception of a guard's own names its decision; bad arguments are not decisions. */
  @Test
  void decisionsAreReportedFromTheOutcomeInOnePlace() {
    List<GuardListener.Decision> heard = new ArrayList<>();
    GuardOptions options =
        new ThirdPartyBuilder()
            .verifier(TokenVerifier.trustEveryWriter())
            .listener((r, d) -> heard.add(d))
            .build();
    FencingToken token = new FencingToken(KEY, 4, UUID.randomUUID());

    assertThat(options.observe(() -> "done")).isEqualTo("done");
    for (Throwable thrown :
        List.of(
            new StaleFenceException(token, 9),
            new Duplicate(),
            new IllegalArgumentException("bad path"),
            new OutOfMemoryError("test"))) {
      assertThatThrownBy(() -> options.observe(() -> rethrow(thrown))).isSameAs(thrown);
    }

    assertThat(heard)
        .containsExactly(
            GuardListener.Decision.ADMITTED,
            GuardListener.Decision.STALE,
            GuardListener.Decision.DUPLICATE,
            GuardListener.Decision.FAIL_CLOSED);
  }

  @Test
  void aThrowingListenerChangesNothing() {
    GuardOptions options =
        new ThirdPartyBuilder()
            .verifier(TokenVerifier.trustEveryWriter())
            .listener(
                (r, d) -> {
                  throw new IllegalStateException("broken metrics");
                })
            .build();
    assertThat(options.observe(() -> 7)).isEqualTo(7);
  }

  @Test
  void aResetIsCheckedAgainstThePolicyBeforeAnythingChanges() {
    GuardOptions options =
        new ThirdPartyBuilder()
            .verifier(TokenVerifier.trustEveryWriter())
            .adminPolicy(AdminPolicy.operators(Set.of("ops")))
            .build();
    options.checkReset(KEY, 5, "ops", "incident 7");
    assertThatThrownBy(() -> options.checkReset(KEY, 5, "mallory", "let me in"))
        .isInstanceOf(AdminDeniedException.class);
    // Out of range for anyone, an operator too: a negative fence, no key, a blank reason.
    record Reset(LeaseKey key, long fence, String reason) {}
    for (Reset bad :
        List.of(new Reset(KEY, -1, "bad"), new Reset(null, 1, "bad"), new Reset(KEY, 1, " "))) {
      assertThatThrownBy(() -> options.checkReset(bad.key(), bad.fence(), "ops", bad.reason()))
          .as("%s", bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void verificationAsksThePresenterFirstThenTheVerifier() {
    SigningKey key = SigningKey.generate(SignatureScheme.HMAC_SHA256, "k1");
    GuardOptions options =
        new ThirdPartyBuilder()
            .verifier(TokenVerifier.signedBy(TokenKeySet.of(key.verificationKey())))
            .build();
    FencingToken unsigned = new FencingToken(KEY, 4, UUID.randomUUID());
    assertThat(options.verify(key.sign(unsigned, Clock.systemUTC(), Duration.ofMinutes(5))).fence())
        .isEqualTo(4);
    assertThatThrownBy(() -> options.verify(unsigned))
        .isInstanceOf(TokenVerificationException.class);
    assertThatThrownBy(
            () ->
                options.verify(
                    () -> {
                      throw new LeaseLostException(unsigned, "test");
                    }))
        .isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> options.verify(null)).isInstanceOf(IllegalArgumentException.class);
  }

  private static final class Duplicate extends RuntimeException
      implements GuardListener.Classified {
    @Override
    public GuardListener.Decision decision() {
      return GuardListener.Decision.DUPLICATE;
    }
  }
}
