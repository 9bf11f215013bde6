package io.leasehold.adapters;

import io.leasehold.testkit.GuardHarness;
import io.leasehold.fencing.TokenVerifier;
import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.file.FileHarness;
import io.leasehold.adapters.jdbc.JdbcTestSchema;
import io.leasehold.adapters.jdbc.RegisterHarness;
import io.leasehold.adapters.tool.ToolHarness;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.testing.ChildJvm;
import io.leasehold.testing.TestDatabaseExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONTRACT C11: two separate JVMs write one key through each adapter with interleaved fences. The
 * adapter's admission log never goes down, it admitted exactly what the processes were told was
 * admitted, and the final state belongs to the highest fence.
 */
class MultiProcessWriteTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("highwater", JdbcTestSchema::apply);

  @TempDir Path dir;

  private static final int WRITES_PER_THREAD = 60;

  @Test
  void fileStore() throws Exception {
    Path root = dir.resolve("files");
    check(new FileHarness(root), "file", root.toString(), LeaseKey.of("a", "file"));
  }

  @Test
  void toolExecutor() throws Exception {
    Path journal = dir.resolve("tools.jsonl");
    check(new ToolHarness(journal, new ConcurrentHashMap<>()), "tool", journal.toString(), LeaseKey.of("a", "tool"));
  }

  @Test
  void jdbcWriter() throws Exception {
    check(new RegisterHarness(db.dataSource()), "jdbc", db.database().jdbcUrl(), LeaseKey.of("a", "jdbc"));
  }

  private void check(GuardHarness h, String kind, String location, LeaseKey key) throws Exception {
    int admitted = 0;
    long max = 0;
    try (ChildJvm odd = start(kind, location, key, 0);
        ChildJvm even = start(kind, location, key, 1)) {
      odd.awaitLine("READY", 60);
      even.awaitLine("READY", 60);
      odd.send("GO");
      even.send("GO");
      for (ChildJvm child : List.of(odd, even)) {
        String[] done = child.awaitLine("DONE ", 120).split(" ");
        admitted += Integer.parseInt(done[1]);
        max = Math.max(max, Long.parseLong(done[3]));
        assertThat(Integer.parseInt(done[1]) + Integer.parseInt(done[2])).isEqualTo(2 * WRITES_PER_THREAD);
        assertThat(child.awaitExit(30)).isZero();
      }
    }
    List<Long> log = h.admittedFences(key);
    assertThat(log).hasSize(admitted);
    for (int i = 1; i < log.size(); i++) {
      assertThat(log.get(i)).as("admission #%d", i).isGreaterThanOrEqualTo(log.get(i - 1));
    }
    // Both processes got writes in, and both were refused some: the fences really interleaved.
    assertThat(log).anyMatch(f -> f % 2 == 0).anyMatch(f -> f % 2 == 1);
    assertThat(admitted).isLessThan(4 * WRITES_PER_THREAD);
    assertThat(h.mark(key)).hasValue(max);
    if (h.finalValueFollowsHighestFence()) {
      assertThat(Long.parseLong(h.value(key).orElseThrow().split(":")[0])).isEqualTo(max);
    }
  }

  private ChildJvm start(String kind, String location, LeaseKey key, int parity) throws Exception {
    return ChildJvm.start(
        ConcurrentWriterMain.class,
        kind,
        location,
        key.accountId(),
        key.sessionId(),
        Integer.toString(parity),
        Integer.toString(WRITES_PER_THREAD),
        db.database().server().user(),
        db.database().server().password());
  }
}
