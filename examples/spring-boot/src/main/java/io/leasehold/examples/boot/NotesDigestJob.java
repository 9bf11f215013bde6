package io.leasehold.examples.boot;

import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.lease.LeaseStore;
import io.leasehold.shedlock.FencedLock;
import io.leasehold.shedlock.LeaseholdLockProvider;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled job under ShedLock's {@code @SchedulerLock}, on Leasehold leases: however many
 * instances of the service run, one writes the digest at a time, and a paused instance whose lock
 * expired cannot write over a newer one's digest (the file store refuses its fence).
 */
@Component
@org.springframework.boot.autoconfigure.condition.ConditionalOnProperty(
    name = "notes.digest.enabled",
    matchIfMissing = true)
class NotesDigestJob {
  private final FencedFileStore notes;

  NotesDigestJob(FencedFileStore notes) {
    this.notes = notes;
  }

  /** ShedLock on the starter's lease store: one bean, and the two annotations. */
  @Configuration
  @EnableScheduling
  @EnableSchedulerLock(defaultLockAtMostFor = "PT1M")
  static class Locking {
    // region lock-provider
    @Bean
    LockProvider lockProvider(LeaseStore leases) {
      return LeaseholdLockProvider.of(
          leases, "scheduler"); // lock names are sessions of "scheduler"
    }
    // endregion
  }

  // region scheduled-job
  @Scheduled(fixedDelayString = "${notes.digest.every:PT1M}")
  @SchedulerLock(name = "notes-digest", lockAtMostFor = "PT30S", lockAtLeastFor = "PT1S")
  public void writeDigest() {
    FencedLock lock = FencedLock.current().orElseThrow(); // this method's own lock
    String digest = "digest by fence " + lock.token().fence() + " at " + Instant.now() + "\n";
    // Under PathScope.sessionDirectories(), the lock's files live under scheduler/notes-digest/.
    notes.write(lock, "scheduler/notes-digest/digest.txt", digest.getBytes(StandardCharsets.UTF_8));
  }
  // endregion
}
