package io.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * CONTRACT C21 for guards that wait for a peer (a lock file another process holds, a row lock of
 * another transaction): the wait ends at its configured limit with an error that names what it
 * waited for, and nothing changes. Before issue 27 a file store write behind a stuck peer was still
 * blocked after 8 s, with no timeout and no error.
 */
public interface BoundedWaitContract {
  /**
   * A fresh guard on fresh storage that trusts every writer and waits for a peer at most {@code
   * limit}.
   *
   * @param limit the guard's lock wait limit
   * @return the harness
   */
  GuardHarness waitingHarness(Duration limit);

  /**
   * Makes a real peer (another process, another connection) hold what a write of {@code key} waits
   * for, and returns once it does; closing it releases the peer.
   *
   * @param harness the guard
   * @param key the key about to be written
   * @return the stuck peer
   * @throws Exception if the peer cannot be started
   */
  AutoCloseable stickPeer(GuardHarness harness, LeaseKey key) throws Exception;

  /**
   * What the guard waits for, as its error must name it (a lock file's path, a table).
   *
   * @param harness the guard
   * @param key the key
   * @return text the error contains
   */
  String awaitedName(GuardHarness harness, LeaseKey key);

  /**
   * With a stuck peer, a write fails after the 300 ms limit naming what it waited for, the value
   * and mark stay; once the peer lets go, the write goes through. The 60 s bound only turns the old
   * behavior, a wait for ever, into a failure: it measures nothing.
   */
  @Test
  default void aStuckPeerEndsAWriteAtItsLimitNamingWhatItWaitedFor() throws Exception {
    GuardHarness h = waitingHarness(Duration.ofMillis(300));
    LeaseKey key = LeaseKey.of("acct", "stuck-" + UUID.randomUUID());
    h.write(key, new FencingToken(key, 1, UUID.randomUUID()), "one");
    FencingToken next = new FencingToken(key, 2, UUID.randomUUID());
    AutoCloseable peer = stickPeer(h, key);
    try {
      assertTimeoutPreemptively(
          Duration.ofSeconds(60),
          () -> {
            assertThatThrownBy(() -> h.write(key, next, "two"))
                .hasMessageContaining(awaitedName(h, key));
          });
    } finally {
      peer.close();
    }
    assertThat(h.value(key)).contains("one");
    assertThat(h.mark(key)).hasValue(1);
    h.write(key, next, "two");
    assertThat(h.value(key)).contains("two");
  }
}
