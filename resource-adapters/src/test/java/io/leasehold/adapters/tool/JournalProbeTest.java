package io.leasehold.adapters.tool;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A journal evidence test (CONTRACT C16): each test tampers with a fresh {@link JournalProbe}. */
abstract class JournalProbeTest {
  @TempDir Path dir;
  JournalProbe probe;

  @BeforeEach
  void probe() {
    probe = new JournalProbe(dir);
  }
}
