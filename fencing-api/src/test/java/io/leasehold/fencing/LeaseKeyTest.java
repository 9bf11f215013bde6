package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LeaseKeyTest {
  @Test
  void rejectsBadParts() {
    assertThatThrownBy(() -> LeaseKey.of(null, "s")).hasMessageContaining("accountId");
    assertThatThrownBy(() -> LeaseKey.of("a", null)).hasMessageContaining("sessionId");
    assertThatThrownBy(() -> LeaseKey.of(" ", "s")).hasMessageContaining("blank");
    assertThatThrownBy(() -> LeaseKey.of("a", "x".repeat(LeaseKey.MAX_LENGTH + 1)))
        .hasMessageContaining("at most 128");
    assertThatThrownBy(() -> LeaseKey.of("a\nb", "s")).hasMessageContaining("control");
  }

  @Test
  void acceptsLongestAllowed() {
    String longest = "x".repeat(LeaseKey.MAX_LENGTH);
    assertThat(LeaseKey.of(longest, longest).accountId()).hasSize(LeaseKey.MAX_LENGTH);
  }
}
