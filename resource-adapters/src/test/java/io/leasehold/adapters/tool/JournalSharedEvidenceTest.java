package io.leasehold.adapters.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONTRACT C16: a second journal open on the same files (another process) checks the marks
 * against the lines the first appended; an oversized or endless older marks file is refused in
 * bounded time.
 */
class JournalSharedEvidenceTest {
  private static final LeaseKey K = LeaseKey.of("acct", "chat");
  @TempDir Path dir;
  private final AtomicInteger ran = new AtomicInteger();
  private final FencedTool echo = FencedTool.of("echo", a -> { ran.incrementAndGet(); return a; });

  private static FencingToken token(long fence) {
    return new FencingToken(K, fence, new UUID(fence, 42));
  }

  private FencedToolExecutor executor(Path file) {
    return FencedToolExecutor.builder().verifier(TokenVerifier.trustEveryWriter())
        .journal(FileToolJournal.open(file)).tool(echo).build();
  }

  /**
   * Two executors on one journal (as two processes would be). The second never admitted K; the
   * first admits fence 9; both mark copies are then restored from an older backup (fence 2). The
   * second reads the first's journal lines (fence 9 started and finished) before it admits.
   */
  @Test
  void aSecondOpenJournalRefusesAStaleFenceAfterBothCopiesWereLowered() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FencedToolExecutor first = executor(file);
    FencedToolExecutor second = executor(file);
    first.call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    Path two = dir.resolve("two");
    executor(two).call(token(2), "echo", JsonNodeFactory.instance.objectNode());
    String name = FileMarkStore.fileName(K);
    for (String sub : new String[] {"marks", "marks-copy"}) {
      Files.copy(dir.resolve("two.marks.d/" + sub + "/" + name), dir.resolve("tools.jsonl.marks.d/" + sub + "/" + name),
          StandardCopyOption.REPLACE_EXISTING);
    }
    int before = ran.get();
    assertThatThrownBy(() -> second.call(token(3), "echo", JsonNodeFactory.instance.objectNode()))
        .as("fence 3 admitted by the second journal after fence 9").isInstanceOf(RuntimeException.class);
    assertThat(ran.get()).isEqualTo(before);
  }

  /** A 3 GiB sparse older marks file, marks directory gone: refused in bounded time, no OOM. */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void hugeOlderMarksFile() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    executor(file).call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    try (Stream<Path> walk = Files.walk(dir.resolve("tools.jsonl.marks.d"))) {
      for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
    try (RandomAccessFile raf = new RandomAccessFile(dir.resolve("tools.jsonl.marks").toFile(), "rw")) {
      raf.setLength(3L << 30);
    }

    Object r;
    try {
      executor(file).call(token(3), "echo", JsonNodeFactory.instance.objectNode());
      r = "admitted";
    } catch (Throwable t) {
      r = t;
    }
    assertThat(r).isNotEqualTo("admitted");
    assertThat(r).isInstanceOf(RuntimeException.class);
  }

  /** The older marks file a link to /dev/zero (a device reporting size 0 that never ends). */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void olderMarksFileIsALinkToDevZero() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    executor(file).call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    try (Stream<Path> walk = Files.walk(dir.resolve("tools.jsonl.marks.d"))) {
      for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
    Files.createSymbolicLink(dir.resolve("tools.jsonl.marks"), Path.of("/dev/zero"));

    Object r;
    try {
      executor(file).call(token(3), "echo", JsonNodeFactory.instance.objectNode());
      r = "admitted";
    } catch (Throwable t) {
      r = t;
    }
    assertThat(r).isInstanceOf(RuntimeException.class);
  }
}
