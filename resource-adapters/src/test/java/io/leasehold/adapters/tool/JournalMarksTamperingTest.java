package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.JournalProbe.deleteTree;
import static io.leasehold.adapters.tool.JournalProbe.olderLine;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * CONTRACT C16: tampered journal marks (a planted older marks file, its reset line without the
 * journal's record, both copies restored lower, planted links) refuse a stale fence.
 */
class JournalMarksTamperingTest extends JournalProbeTest {
  /** A stale older-format marks file planted beside a live mark directory (a re-upgrade). */
  @Test
  void olderMarksFileBesideALiveMarkDirectory() throws Exception {
    probe.olderMarksFilePlantedAfter9(false, olderLine("raise", "2"));
  }

  /** A reset line in a planted older marks file, without the journal's audited mark_reset. */
  @Test
  void plantedResetLineInOlderMarksFile() throws Exception {
    probe.olderMarksFilePlantedAfter9(true, olderLine("reset", "0"));
  }

  /** A damaged older marks file: the upgrade refuses, it does not skip the line. */
  @Test
  void damagedOlderMarksFile() throws Exception {
    probe.olderMarksFilePlantedAfter9(true, olderLine("raise", "9x") + "garbage\n");
  }

  /**
   * Both mark copies restored from an older backup while closed; the journal still shows fence 9.
   */
  @Test
  void bothCopiesLoweredWhileClosed() throws Exception {
    probe.journalAt9();
    probe.restoreBothCopiesAt2();
    probe.staleRefused();
  }

  /** The mark directory replaced by a symlink to a directory holding lower marks. */
  @Test
  void markDirectoryIsASymlinkToLowerMarks() throws Exception {
    probe.journalAt9();
    Path lower = probe.journalAt2();
    deleteTree(probe.markDirectory());
    Files.createSymbolicLink(probe.markDirectory(), lower);
    probe.staleRefused();
  }

  /** marks/ and marks-copy/ symlinks to a lower journal's. */
  @Test
  void markSubdirectoryIsASymlink() throws Exception {
    probe.journalAt9();
    Path lower = probe.journalAt2();
    for (String sub : new String[] {"marks", "marks-copy"}) {
      deleteTree(probe.markDirectory().resolve(sub));
      Files.createSymbolicLink(probe.markDirectory().resolve(sub), lower.resolve(sub));
    }
    probe.staleRefused();
  }

  /** The older marks file is a named pipe: the open does not hang. */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void olderMarksFileIsAPipe() throws Exception {
    probe.journalAt9();
    deleteTree(probe.markDirectory());
    Process p = new ProcessBuilder("mkfifo", probe.olderMarksFile().toString()).start();
    assertThat(p.waitFor()).isZero();
    probe.staleRefused();
  }
}
