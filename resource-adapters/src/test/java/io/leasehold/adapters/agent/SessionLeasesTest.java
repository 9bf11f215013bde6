package io.leasehold.adapters.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class SessionLeasesTest {
  private final LeaseKey key = LeaseKey.of("acct", "chat");

  private static Fenced run(FencingToken token, AtomicBoolean lost) {
    return () -> {
      if (lost.get()) {
        throw new LeaseLostException(token, "expired");
      }
      return token;
    };
  }

  @Test
  void aSecondLiveRunOfTheSameSessionIsRefusedSoAnOldRunCannotBorrowTheNewLease() {
    SessionLeases sessions = new SessionLeases();
    AtomicBoolean firstLost = new AtomicBoolean();
    Fenced first = run(new FencingToken(key, 1, UUID.randomUUID()), firstLost);
    Fenced second = run(new FencingToken(key, 2, UUID.randomUUID()), new AtomicBoolean());

    SessionLeases.Registration r1 = sessions.register(first);
    assertThatThrownBy(() -> sessions.register(second))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already has a live run")
        .hasMessageContaining("fence 1");
    assertThat(sessions.find(key)).containsSame(first);

    firstLost.set(true); // the first run knows it lost its lease: the newer one may register
    SessionLeases.Registration r2 = sessions.register(second);
    assertThat(sessions.find(key)).containsSame(second);
    r1.close(); // closing a replaced registration leaves the newer one alone
    assertThat(sessions.find(key)).containsSame(second);
    r2.close();
    assertThat(sessions.find(key)).isEmpty();
  }

  @Test
  void aLostLeaseCannotRegister() {
    AtomicBoolean lost = new AtomicBoolean(true);
    assertThatThrownBy(
            () ->
                new SessionLeases()
                    .register(run(new FencingToken(key, 1, UUID.randomUUID()), lost)))
        .isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> new SessionLeases().register(null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
