package io.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * CONTRACT C16 for guards that persist marks where an unlucky operator or a crash can damage them
 * (files): damage never lowers a mark. Implement it next to {@link FenceGuardContract}, with each
 * kind of damage your storage can suffer.
 */
public interface DamagedStateContract {
  /**
   * A fresh guard on fresh storage that trusts every writer.
   *
   * @return the harness
   */
  GuardHarness damageableHarness();

  /**
   * How the key's persisted mark can be damaged: deleted, truncated, overwritten with garbage or
   * with a lower value. The stale writer then writes the resource fence 10 wrote, so a guard may
   * refuse a lower value from what it finds there (the file store reads the writer recorded on the
   * file). A well-formed lower value written everywhere the mark is kept is a forged state, which
   * no guard can tell from a true one for resources the key never wrote: the contract does not ask
   * for that, and each guard's docs say how far its evidence reaches.
   *
   * @return named damages, each applied to a guard that admitted fence 10 for the key
   */
  java.util.Map<String, java.util.function.BiConsumer<GuardHarness, LeaseKey>> damages();

  /**
   * After each damage, a stale writer (fence 5) is refused, by a stale-fence refusal or a
   * fail-closed error, and the value stays the one fence 10 wrote.
   */
  @Test
  default void damageNeverLetsAStaleWriterIn() {
    damages()
        .forEach(
            (name, damage) -> {
              GuardHarness h = damageableHarness();
              LeaseKey key = LeaseKey.of("damaged", "key-" + UUID.randomUUID());
              h.write(key, new FencingToken(key, 10, UUID.randomUUID()), "ten");
              damage.accept(h, key);
              assertThatThrownBy(
                      () -> h.write(key, new FencingToken(key, 5, UUID.randomUUID()), "stale"))
                  .as("stale write after damage '%s'", name)
                  .isNotNull();
              assertThat(h.value(key)).as("value after damage '%s'", name).contains("ten");
            });
  }
}
