package io.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * CONTRACT C16 for guards that run the resource's own write (a callback, a tool, a transaction's
 * work): whatever that write throws, {@code Error}s included, the guard stays correct. Implement it
 * next to {@link FenceGuardContract}.
 */
public interface ThrownErrorContract {
  /**
   * A fresh guard on fresh storage that trusts every writer.
   *
   * @return the harness
   */
  GuardHarness throwingHarness();

  /**
   * Writes through the guard with a write that throws {@code thrown} where the resource's own
   * change would be made.
   *
   * @param harness the harness
   * @param key the key
   * @param token the token
   * @param thrown what the write throws
   */
  void writeThrowing(GuardHarness harness, LeaseKey key, FencingToken token, Throwable thrown);

  /**
   * After writes that threw an {@code AssertionError}, a {@code StackOverflowError}, a checked
   * exception and a runtime exception, with a higher fence each, a stale writer is still refused,
   * the thrown writes left no value, and the next honest write is admitted.
   */
  @Test
  default void aThrowingWriteNeverLetsAStaleWriterIn() {
    GuardHarness h = throwingHarness();
    LeaseKey key = LeaseKey.of("thrown", "key-" + UUID.randomUUID());
    h.write(key, new FencingToken(key, 5, UUID.randomUUID()), "five");
    long fence = 6;
    for (Throwable t :
        List.of(
            new AssertionError("asserted"),
            new StackOverflowError(),
            new Exception("checked"),
            new IllegalStateException("runtime"))) {
      long f = fence++;
      assertThatThrownBy(
              () -> writeThrowing(h, key, new FencingToken(key, f, UUID.randomUUID()), t))
          .as("a write that threw %s", t)
          .isNotNull();
      assertThat(h.value(key)).as("after a write that threw %s", t).contains("five");
      assertThatThrownBy(() -> h.write(key, new FencingToken(key, 4, UUID.randomUUID()), "stale"))
          .isInstanceOf(StaleFenceException.class);
    }
    h.write(key, new FencingToken(key, fence, UUID.randomUUID()), "honest");
    assertThat(h.value(key)).contains("honest");
    assertThat(h.mark(key)).hasValue(fence);
  }
}
