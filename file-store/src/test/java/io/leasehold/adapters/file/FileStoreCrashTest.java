package io.leasehold.adapters.file;

import static io.leasehold.adapters.file.FileHarness.anyPathStore;
import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.testkit.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONTRACT C10: a writer process killed (SIGKILL) at a random moment mid-write leaves the old
 * content or the new one, never a torn file, and never a mark below an acknowledged write.
 */
class FileStoreCrashTest {
  @TempDir Path root;

  @Test
  void killedWriterLeavesOldOrNewContentNeverTorn() throws Exception {
    Random random = new Random(42);
    long nextFence = 1;
    int killedMidWrite = 0;
    for (int round = 0; round < 8; round++) {
      long acknowledged;
      try (ChildJvm child =
          ChildJvm.start(CrashingWriterMain.class, root.toString(), Long.toString(nextFence))) {
        acknowledged = Long.parseLong(child.awaitLine("WROTE ", 60).split(" ")[1]);
        Thread.sleep(random.nextInt(40)); // let it get somewhere into a later write
        child.kill();
      }
      try (Stream<Path> tmp = Files.list(root.resolve(".leasehold/tmp"))) {
        if (tmp.findAny().isPresent()) {
          killedMidWrite++;
        }
      }
      FencedFileStore store = anyPathStore(root).open();
      StoredFile file = store.read("big.bin").orElseThrow();
      long fence = file.writtenBy().orElseThrow().fence();
      byte[] content = file.content();
      assertThat(content).hasSize(CrashingWriterMain.SIZE);
      byte expected = CrashingWriterMain.fill(fence);
      for (int i = 0; i < content.length; i += 4096) {
        assertThat(content[i]).as("byte %d of version %d", i, fence).isEqualTo(expected);
      }
      assertThat(content[content.length - 1]).isEqualTo(expected);
      assertThat(fence).isGreaterThanOrEqualTo(acknowledged);
      long mark = store.highWaterMark(LeaseKey.of("acct", "crash")).orElseThrow();
      assertThat(mark).isGreaterThanOrEqualTo(fence);
      // Opening the store removed the dead writer's temporary files.
      try (Stream<Path> tmp = Files.list(root.resolve(".leasehold/tmp"))) {
        assertThat(tmp).isEmpty();
      }
      nextFence = mark + 1;
    }
    // Kills that land inside a write leave a temporary file behind: this shows the test exercised
    // what it claims. Logged rather than asserted, since where a kill lands is up to the scheduler.
    System.out.println("killed mid-write in " + killedMidWrite + " of 8 rounds");
  }
}
