package io.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerificationException;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * CONTRACT C19 for guards whose resource owner assigns resources to lease keys (a file store's
 * paths, a tool's arguments): a valid token of one key never touches what belongs to another, and
 * the refusal names both keys. Implement it next to {@link FenceGuardContract} with a harness whose
 * {@link GuardHarness#write} writes the register of its {@code key} argument through the guard's
 * scope, whatever key the token has. The keys used are plain ({@code victim/chat}, {@code
 * mallory/s-1}), so a path layout by account and session holds them.
 */
public interface TokenScopeContract {
  /**
   * A fresh guard on fresh storage that trusts every writer and scopes each register to its key.
   *
   * @return the harness
   */
  GuardHarness scopedHarness();

  /**
   * Mallory's valid token, with a fence far above the victim's, is refused {@code OUT_OF_SCOPE} on
   * the victim's register with an error naming both keys; the value and both marks stay as they
   * were.
   */
  @Test
  default void aValidTokenOfAnotherKeyIsRefusedNamingBothKeysAndChangesNothing() {
    GuardHarness h = scopedHarness();
    LeaseKey victim = LeaseKey.of("victim", "chat");
    LeaseKey mallory = LeaseKey.of("mallory", "s-1");
    h.write(victim, new FencingToken(victim, 5, UUID.randomUUID()), "the victim's");
    FencingToken foreign = new FencingToken(mallory, 1_000, UUID.randomUUID());
    assertThatThrownBy(() -> h.write(victim, foreign, "mallory's"))
        .isInstanceOfSatisfying(
            TokenVerificationException.class,
            e -> assertThat(e.reason()).isEqualTo(TokenVerificationException.Reason.OUT_OF_SCOPE))
        .hasMessageContaining("victim")
        .hasMessageContaining("chat")
        .hasMessageContaining("mallory")
        .hasMessageContaining("s-1");
    assertThat(h.value(victim)).contains("the victim's");
    assertThat(h.mark(victim)).hasValue(5);
    assertThat(h.mark(mallory)).isEmpty();
    // Her own register is still hers to write.
    h.write(mallory, foreign, "mallory's own");
    assertThat(h.value(mallory)).contains("mallory's own");
  }
}
