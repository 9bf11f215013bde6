package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.JournalProbe.deleteTree;
import static io.leasehold.adapters.tool.JournalProbe.token;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * CONTRACT C16: a second journal open on the same files (another process) checks the marks against
 * the lines the first appended; an oversized or endless older marks file is refused in bounded
 * time.
 */
class JournalSharedEvidenceTest extends JournalProbeTest {
  /**
   * Two executors on one journal (as two processes would be). The second never admitted the key;
   * the first admits fence 9; both mark copies are then restored from an older backup (fence 2).
   * The second reads the first's journal lines (fence 9 started and finished) before it admits.
   */
  @Test
  void aSecondOpenJournalRefusesAStaleFenceAfterBothCopiesWereLowered() throws Exception {
    FencedToolExecutor first = probe.executor(probe.file);
    FencedToolExecutor second = probe.executor(probe.file);
    first.call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    probe.restoreBothCopiesAt2();
    probe.staleRefused(second);
  }

  /** A 3 GiB sparse older marks file, marks directory gone: refused in bounded time, no OOM. */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void hugeOlderMarksFile() throws Exception {
    probe.journalAt9();
    deleteTree(probe.markDirectory());
    try (RandomAccessFile raf = new RandomAccessFile(probe.olderMarksFile().toFile(), "rw")) {
      raf.setLength(3L << 30);
    }
    assertThat(probe.staleCallOutcome()).isInstanceOf(RuntimeException.class);
  }

  /** The older marks file a link to /dev/zero (a device reporting size 0 that never ends). */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void olderMarksFileIsALinkToDevZero() throws Exception {
    probe.journalAt9();
    deleteTree(probe.markDirectory());
    Files.createSymbolicLink(probe.olderMarksFile(), Path.of("/dev/zero"));
    assertThat(probe.staleCallOutcome()).isInstanceOf(RuntimeException.class);
  }
}
