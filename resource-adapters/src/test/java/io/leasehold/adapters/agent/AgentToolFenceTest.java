package io.leasehold.adapters.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.JournalRedaction;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.adapters.tool.TestTools;
import io.leasehold.adapters.tool.ToolCall;
import io.leasehold.adapters.tool.ToolCallFailedException;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.Refusal;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The framework-free part of every agent integration. */
class AgentToolFenceTest {
  private final LeaseKey key = LeaseKey.of("acct", "chat");
  private final MemoryToolJournal journal = new MemoryToolJournal();
  private final List<RunStop> stops = new CopyOnWriteArrayList<>();
  private final AtomicInteger invoked = new AtomicInteger();

  private AgentToolFence fence(TokenVerifier verifier) {
    return AgentToolFence.builder(
            FencedToolExecutor.builder().verifier(verifier).journal(journal).build())
        .listener(stops::add)
        .build();
  }

  private AgentToolOutcome<String> call(AgentToolFence fence, Fenced run) {
    return fence.call(
        run,
        "send",
        "{\"to\":\"ada\"}",
        c -> {
          invoked.incrementAndGet();
          return "sent";
        },
        s -> s);
  }

  @Test
  void aRunRefusedAsSupersededIsRefusedLocallyAfterwardsAndTheListenerHearsOnce() {
    AgentToolFence fence = fence(TokenVerifier.trustEveryWriter());
    FencingToken older = new FencingToken(key, 1, UUID.randomUUID());
    fence.startRun(new FencingToken(key, 2, UUID.randomUUID()));

    AgentToolOutcome<String> first = call(fence, older);
    AgentToolOutcome<String> second = call(fence, older);

    assertThat(first).isInstanceOf(AgentToolOutcome.Refused.class);
    assertThat(second)
        .isInstanceOfSatisfying(
            AgentToolOutcome.Refused.class,
            r ->
                assertThat(r.stop().messageForModel())
                    .contains("fence 2", "fence 1", "\"send\" was NOT run"));
    assertThat(invoked).hasValue(0);
    assertThat(stops)
        .singleElement()
        .extracting(RunStop::reason)
        .isEqualTo(Refusal.Reason.SUPERSEDED);
    // Issue 27: a stale run's calls add nothing to the journal (the listener counts them).
    assertThat(journal.calls(key)).isEmpty();
  }

  @Test
  void aForgedTokenIsRefusedButCannotStopTheRunItImitates() throws Exception {
    SigningKey signing =
        SigningKey.generate(io.leasehold.fencing.SignatureScheme.HMAC_SHA256, "k1");
    AgentToolFence fence = fence(TokenVerifier.signedBy(TokenKeySet.of(signing.verificationKey())));
    FencingToken real =
        signing.sign(
            new FencingToken(key, 4, UUID.randomUUID()), Clock.systemUTC(), Duration.ofMinutes(5));
    FencingToken forged = real.unsigned();

    assertThat(call(fence, forged))
        .isInstanceOfSatisfying(
            AgentToolOutcome.Refused.class,
            r -> assertThat(r.stop().reason()).isEqualTo(Refusal.Reason.FORGED));
    assertThat(call(fence, real)).isInstanceOf(AgentToolOutcome.Ran.class);
    assertThat(invoked).hasValue(1);
  }

  /**
   * Red team 47, B3: for the same token, the executor's listener hears the very refusal the run's
   * {@link RunStop} carries: key, fence and, for an expired token, its validity window.
   */
  @Test
  void theListenerHearsTheRefusalRunStopCarries() {
    SigningKey signing =
        SigningKey.generate(io.leasehold.fencing.SignatureScheme.HMAC_SHA256, "k1");
    List<Refusal> heard = new CopyOnWriteArrayList<>();
    AgentToolFence fence =
        AgentToolFence.builder(
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.signedBy(TokenKeySet.of(signing.verificationKey())))
                    .journal(journal)
                    .listener(
                        new GuardListener() {
                          @Override
                          public void decided(String resource, Decision decision) {}

                          @Override
                          public void refused(String resource, Refusal refusal) {
                            heard.add(refusal);
                          }
                        })
                    .build())
            .listener(stops::add)
            .build();
    FencingToken expired =
        signing.sign(
            new FencingToken(key, 6, UUID.randomUUID()),
            Instant.parse("2020-01-01T00:00:00Z"),
            Instant.parse("2020-01-01T00:01:00Z"));
    FencingToken forged = new FencingToken(key, 7, UUID.randomUUID());
    for (FencingToken token : List.of(expired, forged)) {
      heard.clear();
      stops.clear();
      assertThat(call(fence, token)).isInstanceOf(AgentToolOutcome.Refused.class);
      assertThat(heard).singleElement().isEqualTo(stops.get(0).refusal());
      assertThat(heard.get(0).key()).contains(key);
      assertThat(heard.get(0).fence()).hasValue(token.fence());
    }
    assertThat(stops.get(0).reason()).isEqualTo(Refusal.Reason.FORGED);
    assertThat(invoked).hasValue(0);
  }

  @Test
  void aLostLeaseIsRefusedBeforeTheJournal() {
    AgentToolFence fence = fence(TokenVerifier.trustEveryWriter());
    FencingToken t = new FencingToken(key, 1, UUID.randomUUID());
    Fenced lost =
        () -> {
          throw new LeaseLostException(t, "renewal failed");
        };
    assertThat(call(fence, lost))
        .isInstanceOfSatisfying(
            AgentToolOutcome.Refused.class,
            r -> assertThat(r.stop().reason()).isEqualTo(Refusal.Reason.LEASE_LOST));
    assertThat(journal.calls(key)).isEmpty();
    assertThat(invoked).hasValue(0);
  }

  /** What {@code fence}'s call of "send" throws when the tool's body throws {@code failure}. */
  private static Throwable thrownWhenTheToolThrows(
      AgentToolFence fence, FencingToken t, Exception failure) {
    return catchThrowable(
        () ->
            fence.<String>call(
                t,
                "send",
                "{}",
                c -> {
                  throw failure;
                },
                s -> s));
  }

  @Test
  void whatTheToolThrowsComesOutUnchangedAndTheCallIsJournaledAsFailed() {
    AgentToolFence fence = fence(TokenVerifier.trustEveryWriter());
    FencingToken t = new FencingToken(key, 1, UUID.randomUUID());
    IllegalStateException boom = new IllegalStateException("boom");
    assertThat(thrownWhenTheToolThrows(fence, t, boom)).isSameAs(boom);
    assertThat(thrownWhenTheToolThrows(fence, t, new IOException("io")))
        .isInstanceOf(ToolCallFailedException.class);
    assertThat(journal.calls(key))
        .extracting(ToolCall::state)
        .containsExactly(ToolCall.State.FAILED, ToolCall.State.FAILED);
  }

  /**
   * Issue 27, finding 10: arguments that were not JSON were journaled as text and the tool ran with
   * them. Now they are refused before anything is journaled, trailing data included.
   */
  @Test
  void argumentsThatAreNotOneJsonValueAreRefusedBeforeTheToolRuns() {
    AgentToolFence fence = fence(TokenVerifier.trustEveryWriter());
    FencingToken t = new FencingToken(key, 1, UUID.randomUUID());
    for (String bad : List.of("{not json", "{\"to\":\"ada\"} {\"to\":\"eve\"}", "{}x", "[1,")) {
      assertThatThrownBy(
              () ->
                  fence.call(
                      t,
                      "send",
                      bad,
                      c -> {
                        invoked.incrementAndGet();
                        return "ok";
                      },
                      s -> s))
          .as("arguments %s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not one JSON value")
          .hasMessageNotContaining("ada");
    }
    assertThat(invoked).hasValue(0);
    assertThat(journal.calls(key)).isEmpty();
    assertThat(fence.call(t, "send", "{\"to\":\"ada\"}", c -> "ok", s -> s))
        .isInstanceOf(AgentToolOutcome.Ran.class);
    assertThat(fence.call(t, "send", "", c -> "ok", s -> s))
        .isInstanceOf(AgentToolOutcome.Ran.class);
    assertThatThrownBy(() -> fence.call(null, "send", "{}", c -> "ok", s -> s))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> fence.call(t, " ", "{}", c -> "ok", s -> s))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Issue 47: the agent-tool core asks the lease for its token once, and the executor once more
   * right before the journal admits (its own check that the lease was not lost meanwhile); the old
   * path asked three times.
   */
  @Test
  void theLeaseIsAskedOnceByTheCoreAndOnceBeforeTheJournalAdmits() {
    AgentToolFence fence = fence(TokenVerifier.trustEveryWriter());
    FencingToken token = new FencingToken(key, 1, UUID.randomUUID());
    AtomicInteger asked = new AtomicInteger();
    Fenced lease =
        () -> {
          asked.incrementAndGet();
          return token;
        };

    assertThat(call(fence, lease)).isInstanceOf(AgentToolOutcome.Ran.class);
    assertThat(asked).hasValue(2);
  }

  /**
   * Issue 47: once the tool ran, its outcome is the answer, for every framework as for MCP; a
   * journal that cannot record the outcome leaves the call in doubt, it does not hide that the tool
   * ran.
   */
  @Test
  void aToolThatRanIsAnsweredWithItsResultWhenTheJournalCannotRecordIt() {
    JournalRedaction unrecordable =
        new JournalRedaction() {
          @Override
          public JsonNode result(String tool, JsonNode result) {
            throw new IllegalStateException("the journal cannot record this result");
          }
        };
    AgentToolFence fence =
        AgentToolFence.builder(TestTools.trustingExecutor(journal).redaction(unrecordable).build())
            .build();

    AgentToolOutcome<String> outcome = call(fence, new FencingToken(key, 1, UUID.randomUUID()));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            AgentToolOutcome.Ran.class, ran -> assertThat(ran.value()).isEqualTo("sent"));
    assertThat(invoked).hasValue(1);
    assertThat(journal.calls(key)).singleElement().satisfies(c -> assertThat(c.inDoubt()).isTrue());
  }

  /**
   * Issue 47: a retry of the same run is answered from the journal; a newer run's reuse of the key
   * runs.
   */
  @Test
  void idempotencyKeysArePerRun() {
    AgentToolFence fence =
        AgentToolFence.builder(TestTools.trustingExecutor(journal).build())
            .idempotencyKeys(AgentToolFence.IdempotencyKeys.argument("to"))
            .build();
    FencingToken older = new FencingToken(key, 1, UUID.randomUUID());
    FencingToken newer = new FencingToken(key, 2, UUID.randomUUID());

    assertThat(call(fence, older)).isInstanceOf(AgentToolOutcome.Ran.class);
    assertThat(call(fence, older))
        .isInstanceOfSatisfying(
            AgentToolOutcome.Replayed.class,
            r -> assertThat(r.journaledResult()).isEqualTo("sent"));
    assertThat(call(fence, newer)).isInstanceOf(AgentToolOutcome.Ran.class);
    assertThat(invoked).hasValue(2);
    assertThat(journal.calls(key))
        .extracting(c -> c.idempotencyKey().orElseThrow())
        .containsExactly(older.runId() + ":ada", older.runId() + ":ada", newer.runId() + ":ada");
  }
}
