package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Issue 47: the pipeline every guard runs its calls through, tested once here rather than in each
 * guard: its order (present, verify, scope, step), what it reports, and what it does not.
 */
class GuardPipelineTest {
  private static final LeaseKey KEY = LeaseKey.of("acct", "sess");
  private static final FencingToken TOKEN = new FencingToken(KEY, 4, UUID.randomUUID());

  private final List<String> steps = new ArrayList<>();
  private final List<GuardListener.Decision> heard = new ArrayList<>();

  private GuardOptions options(TokenVerifier verifier) {
    return new GuardOptions(
        "test", verifier, (r, d) -> heard.add(d), AdminPolicy.nobody(), Clock.systemUTC());
  }

  /** A key-wide pipeline that trusts every token and reports to {@code listener}. */
  private static GuardPipeline<Void> unscoped(GuardListener listener) {
    return GuardPipeline.unscoped(
        new GuardOptions(
            "test",
            TokenVerifier.trustEveryWriter(),
            listener,
            AdminPolicy.nobody(),
            Clock.systemUTC()));
  }

  /** A scope that owns only the argument "mine", and writes down that it ran. */
  private GuardPipeline<String> pipeline(TokenVerifier verifier) {
    return new GuardPipeline<>(
        options(verifier),
        (token, argument) -> {
          steps.add("scope");
          if (!argument.equals("mine")) {
            throw new TokenVerificationException(
                TokenVerificationException.Reason.OUT_OF_SCOPE, "not yours");
          }
        });
  }

  /** A listener that adds each decision to {@link #heard} and each refusal to {@code refusals}. */
  private GuardListener hearing(List<Refusal> refusals) {
    return new GuardListener() {
      @Override
      public void decided(String resource, Decision decision) {
        heard.add(decision);
      }

      @Override
      public void refused(String resource, Refusal refusal) {
        refusals.add(refusal);
      }
    };
  }

  /** A step that throws what {@code failure} makes of its call. */
  private static <A, T> GuardPipeline.Step<A, T> fails(
      Function<GuardPipeline.Call<A>, RuntimeException> failure) {
    return call -> {
      throw failure.apply(call);
    };
  }

  private final TokenVerifier recordingVerifier = token -> steps.add("verify");

  private Fenced presenter() {
    return () -> {
      steps.add("present");
      return TOKEN;
    };
  }

  @Test
  void aCallIsPresentedVerifiedScopedThenStepped() {
    String result =
        pipeline(recordingVerifier)
            .run(
                presenter(),
                "mine",
                call -> {
                  steps.add("step " + call.argument() + " " + call.token().fence());
                  return "done";
                });

    assertThat(result).isEqualTo("done");
    assertThat(steps).containsExactly("present", "verify", "scope", "step mine 4");
    assertThat(heard).containsExactly(GuardListener.Decision.ADMITTED);
  }

  @Test
  void aKeyWideCallSkipsTheScope() {
    pipeline(recordingVerifier).runForKey(presenter(), call -> steps.add("step"));
    assertThat(steps).containsExactly("present", "verify", "step");
    assertThat(heard).containsExactly(GuardListener.Decision.ADMITTED);
  }

  @Test
  void eachRefusalStopsThePipelineWhereItHappensAndIsReported() {
    Fenced lost =
        () -> {
          throw new LeaseLostException(TOKEN, "test");
        };
    GuardPipeline<String> refusing =
        pipeline(
            token -> {
              throw new TokenVerificationException(
                  TokenVerificationException.Reason.NOT_ISSUED, "forged");
            });
    GuardPipeline<String> pipeline = pipeline(recordingVerifier);

    assertThatThrownBy(() -> pipeline.run(lost, "mine", call -> steps.add("step")))
        .isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> refusing.run(presenter(), "mine", call -> steps.add("step")))
        .isInstanceOf(TokenVerificationException.class);
    assertThatThrownBy(() -> pipeline.run(presenter(), "theirs", call -> steps.add("step")))
        .isInstanceOf(TokenVerificationException.class);
    assertThatThrownBy(
            () ->
                pipeline.run(
                    presenter(), "mine", fails(call -> new StaleFenceException(call.token(), 9))))
        .isInstanceOf(StaleFenceException.class);
    assertThatThrownBy(
            () ->
                pipeline.run(
                    presenter(), "mine", fails(call -> new IllegalStateException("disk gone"))))
        .isInstanceOf(IllegalStateException.class);

    assertThat(steps).doesNotContain("step");
    assertThat(heard)
        .containsExactly(
            GuardListener.Decision.LEASE_LOST,
            GuardListener.Decision.UNVERIFIED,
            GuardListener.Decision.UNVERIFIED,
            GuardListener.Decision.STALE,
            GuardListener.Decision.FAIL_CLOSED);
  }

  @Test
  void theCallersErrorsAreNotDecisions() {
    GuardPipeline<String> pipeline = pipeline(recordingVerifier);
    assertThatThrownBy(() -> pipeline.run(null, "mine", call -> "never"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> pipeline.run(() -> null, "mine", call -> "never"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                pipeline.run(
                    presenter(),
                    "mine",
                    fails(call -> new IllegalArgumentException("path names a directory"))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(heard).isEmpty();
  }

  /**
   * The in-memory guard's case: admitted before the write, and a failing write is not a refusal.
   */
  @Test
  void anAdmissionReportedByTheStepIsHeardOnceWhateverTheEffectThen() {
    GuardPipeline<String> pipeline = pipeline(recordingVerifier);
    assertThatThrownBy(
            () ->
                pipeline.run(
                    presenter(),
                    "mine",
                    call -> {
                      call.admitted();
                      call.admitted();
                      throw new IllegalStateException("the write failed");
                    }))
        .isInstanceOf(IllegalStateException.class);
    Integer result =
        pipeline.run(
            presenter(),
            "mine",
            call -> {
              call.admitted();
              return 1;
            });
    assertThat(result).isEqualTo(1);
    assertThat(heard)
        .containsExactly(GuardListener.Decision.ADMITTED, GuardListener.Decision.ADMITTED);
  }

  @Test
  void aStepCanAskForTheTokenAgainBeforeItAdmits() {
    boolean[] lost = {false};
    Fenced lease =
        () -> {
          if (lost[0]) {
            throw new LeaseLostException(TOKEN, "lost while the step prepared");
          }
          return TOKEN;
        };
    assertThatThrownBy(
            () ->
                pipeline(recordingVerifier)
                    .run(
                        lease,
                        "mine",
                        call -> {
                          lost[0] = true;
                          call.presentAgain();
                          return steps.add("admitted");
                        }))
        .isInstanceOf(LeaseLostException.class);
    assertThat(steps).doesNotContain("admitted");
    assertThat(heard).containsExactly(GuardListener.Decision.LEASE_LOST);
  }

  @Test
  void aBrokenListenerNeverChangesTheDecision() {
    GuardPipeline<Void> pipeline =
        unscoped(
            (r, d) -> {
              throw new IllegalStateException("broken metrics");
            });
    Integer result = pipeline.runForKey(TOKEN, call -> 7);
    assertThat(result).isEqualTo(7);
    assertThatThrownBy(
            () ->
                pipeline.runForKey(TOKEN, fails(call -> new StaleFenceException(call.token(), 9))))
        .isInstanceOf(StaleFenceException.class);
  }

  @Test
  void aReadOnBehalfOfARunVerifiesButReportsNothing() {
    assertThat(pipeline(recordingVerifier).verified(presenter())).isEqualTo(TOKEN);
    assertThat(steps).containsExactly("present", "verify");
    assertThat(heard).isEmpty();
  }

  /** Issue 47: a refusal reaches the listener in the one vocabulary, with what the guard knew. */
  @Test
  void aRefusalIsHeardWithItsReasonKeyAndFences() {
    List<Refusal> refusals = new ArrayList<>();
    GuardListener listener = hearing(refusals);
    GuardPipeline<Void> pipeline = unscoped(listener);

    pipeline.runForKey(TOKEN, call -> "admitted");
    assertThatThrownBy(
            () ->
                pipeline.runForKey(TOKEN, fails(call -> new StaleFenceException(call.token(), 9))))
        .isInstanceOf(StaleFenceException.class);
    assertThatThrownBy(
            () -> pipeline.runForKey(TOKEN, fails(call -> new IllegalStateException("disk gone"))))
        .isInstanceOf(IllegalStateException.class);

    assertThat(heard)
        .containsExactly(
            GuardListener.Decision.ADMITTED,
            GuardListener.Decision.STALE,
            GuardListener.Decision.FAIL_CLOSED);
    assertThat(refusals).hasSize(2);
    Refusal stale = refusals.get(0);
    assertThat(stale.reason()).isEqualTo(Refusal.Reason.SUPERSEDED);
    assertThat(stale.key()).contains(KEY);
    assertThat(stale.fence()).hasValue(4);
    assertThat(stale.highestSeen()).hasValue(9);
    assertThat(refusals.get(1).reason().decision()).isEqualTo(GuardListener.Decision.FAIL_CLOSED);
  }

  /**
   * Red team 47, B2: whatever a listener throws, Errors included, a done call returns, a refusal
   * throws its own exception (the listener's throwable suppressed in it), and a failed effect its.
   */
  @Test
  void aListenerThatThrowsAnErrorNeverChangesTheOutcome() {
    for (Throwable broken :
        List.<Throwable>of(
            new AssertionError("listener assertion"),
            new StackOverflowError("listener recursion"),
            new IllegalStateException("broken metrics"))) {
      GuardListener listener =
          new GuardListener() {
            @Override
            public void decided(String resource, Decision decision) {
              sneak(broken);
            }

            @Override
            public void refused(String resource, Refusal refusal) {
              sneak(broken);
            }
          };
      GuardPipeline<Void> pipeline = unscoped(listener);
      assertThat((Object) pipeline.runForKey(TOKEN, call -> 7)).isEqualTo(7);
      StaleFenceException stale = new StaleFenceException(TOKEN, 9);
      assertThatThrownBy(() -> pipeline.runForKey(TOKEN, fails(call -> stale)))
          .isSameAs(stale)
          .satisfies(e -> assertThat(e.getSuppressed()).contains(broken));
      IllegalStateException effect = new IllegalStateException("the write failed");
      assertThatThrownBy(
              () ->
                  pipeline.runForKey(
                      TOKEN,
                      call -> {
                        call.admitted();
                        throw effect;
                      }))
          .isSameAs(effect);
    }
  }

  /**
   * Red team 47, B2: the in-memory guard hears its admission after the write, so a listener that
   * throws cannot raise the mark and drop the write.
   */
  @Test
  void theInMemoryGuardRunsTheWriteEvenIfItsListenerThrows() {
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .listener(
                (resource, decision) -> {
                  throw new AssertionError("listener assertion");
                })
            .build();
    List<String> writes = new ArrayList<>();
    assertThat(guard.runFenced(TOKEN, () -> writes.add("four"))).isTrue();
    assertThat(writes).containsExactly("four");
    assertThat(guard.highWaterMark(KEY)).hasValue(4);
  }

  /**
   * Red team 47, B3: the listener's refusal names the key and fence of every token that could be
   * read, and the window of an expired one: the refusal {@code Refusal.of(e, token)} gives, as
   * {@code RunStop} carries it.
   */
  @Test
  void theListenersRefusalIsTheOneRefusalOfTheTokenRead() {
    List<Refusal> refusals = new ArrayList<>();
    GuardListener listener = hearing(refusals);
    List<RuntimeException> thrown = new ArrayList<>();
    TokenVerificationException expired =
        new TokenVerificationException(TokenVerificationException.Reason.EXPIRED, "expired");
    TokenVerificationException forged =
        new TokenVerificationException(TokenVerificationException.Reason.BAD_SIGNATURE, "forged");
    FencingToken signed =
        SigningKey.generate(SignatureScheme.HMAC_SHA256, "k1")
            .sign(
                TOKEN,
                java.time.Instant.parse("2020-01-01T00:00:00Z"),
                java.time.Instant.parse("2020-01-01T00:01:00Z"));
    for (TokenVerificationException refused : List.of(expired, forged)) {
      GuardPipeline<String> pipeline =
          new GuardPipeline<>(
              new GuardOptions(
                  "test",
                  token -> {
                    throw refused;
                  },
                  listener,
                  AdminPolicy.nobody(),
                  Clock.systemUTC()),
              (token, argument) -> {});
      assertThatThrownBy(() -> pipeline.run(signed, "mine", call -> "never"))
          .isSameAs(refused)
          .satisfies(e -> thrown.add((RuntimeException) e));
    }
    GuardPipeline<String> scoped =
        new GuardPipeline<>(
            new GuardOptions(
                "test",
                TokenVerifier.trustEveryWriter(),
                listener,
                AdminPolicy.nobody(),
                Clock.systemUTC()),
            (token, argument) -> {
              if (!argument.equals("mine")) {
                throw new TokenVerificationException(
                    TokenVerificationException.Reason.OUT_OF_SCOPE, "not yours");
              }
            });
    assertThatThrownBy(() -> scoped.run(signed, "theirs", call -> "never"))
        .satisfies(e -> thrown.add((RuntimeException) e));
    assertThatThrownBy(
            () -> scoped.run(signed, "mine", fails(call -> new IllegalStateException("disk gone"))))
        .satisfies(e -> thrown.add((RuntimeException) e));

    assertThat(refusals).hasSize(4);
    for (int i = 0; i < refusals.size(); i++) {
      assertThat(refusals.get(i)).isEqualTo(Refusal.of(thrown.get(i), signed));
      assertThat(refusals.get(i).key()).contains(KEY);
      assertThat(refusals.get(i).fence()).hasValue(4);
    }
    assertThat(refusals.get(0).validFrom())
        .contains(java.time.Instant.parse("2020-01-01T00:00:00Z"));
    assertThat(refusals.get(0).validUntil())
        .contains(java.time.Instant.parse("2020-01-01T00:01:00Z"));
  }

  /**
   * Red team 47, B7: once a step says its effect runs, an {@link IllegalArgumentException} from it
   * is the effect failing, reported by whether the admission stands, and no longer the caller's
   * error: FAIL_CLOSED (the JDBC writer's rolled-back work), ADMITTED (the in-memory guard's
   * write).
   */
  @Test
  void anIllegalArgumentFromTheEffectIsADecision() {
    GuardPipeline<String> pipeline = pipeline(recordingVerifier);
    GuardPipeline.Step<String, Object> badWork =
        fails(
            call -> {
              call.effectRuns();
              return new IllegalArgumentException("the work's own bad input");
            });
    assertThatThrownBy(() -> pipeline.run(presenter(), "mine", badWork))
        .isInstanceOf(IllegalArgumentException.class);
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .listener((r, d) -> heard.add(d))
            .build();
    assertThatThrownBy(
            () ->
                guard.runFenced(
                    TOKEN,
                    () -> {
                      throw new IllegalArgumentException("the write's own bad input");
                    }))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(heard)
        .containsExactly(GuardListener.Decision.FAIL_CLOSED, GuardListener.Decision.ADMITTED);
  }

  /** Throws any throwable, as a listener written in another JVM language may. */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> void sneak(Throwable t) throws E {
    throw (E) t;
  }
}
