package io.leasehold.adapters.tool;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The journal's memory of started calls' keys stays bounded, forgetting the eldest first. */
class StartedCallKeysTest {
  private final LeaseKey alice = LeaseKey.of("alice", "chat");
  private final LeaseKey bob = LeaseKey.of("bob", "chat");

  @Test
  void theEldestCallIsForgottenPastTheLimitAndAnEndedOneAtOnce() {
    StartedCallKeys keys = new StartedCallKeys(2);
    UUID first = UUID.randomUUID();
    UUID second = UUID.randomUUID();
    UUID third = UUID.randomUUID();
    keys.started(first, alice);
    keys.started(second, bob);
    keys.started(third, alice);
    assertThat(keys.key(first)).as("forgotten: its outcome goes by call id alone").isNull();
    assertThat(keys.key(second)).isEqualTo(bob);
    assertThat(keys.key(third)).isEqualTo(alice);
    keys.ended(second);
    assertThat(keys.key(second)).isNull();
    assertThat(keys.key(third)).isEqualTo(alice);
  }
}
