package io.leasehold.adapters;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.file.FileHarness;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.adapters.tool.TestTools;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONTRACT C16 for the state files the file store and the tool journal open under their lock. What
 * broke: a named pipe in place of one of them (a mark, the lock file, the audit log, the journal or
 * its marks) made the next operation block forever in open(2), holding the lock that every thread
 * and process of the resource waits for. Each is now refused, naming the repair, and the resource
 * is untouched.
 */
class SpecialStateFilesTest {
  private static final LeaseKey KEY = LeaseKey.of("acct", "chat-1");
  @TempDir Path dir;

  private static FencingToken token(long fence) {
    return new FencingToken(KEY, fence, UUID.nameUUIDFromBytes(Long.toString(fence).getBytes()));
  }

  private static void mkfifo(Path at) throws Exception {
    Files.deleteIfExists(at);
    Process p = new ProcessBuilder("mkfifo", at.toString()).inheritIO().start();
    assertThat(p.waitFor()).isZero();
  }

  /**
   * Runs {@code operation} on another thread and returns what it threw. The bound is for a hang
   * (the old behaviour), not for speed; a hung operation is unblocked by opening the pipe's other
   * end, so the test fails instead of hanging the build.
   */
  private static Throwable refusal(Path fifo, Supplier<?> operation) throws Exception {
    CompletableFuture<Throwable> attempt =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                operation.get();
                return null;
              } catch (RuntimeException e) {
                return e;
              }
            });
    try {
      return attempt.get(60, TimeUnit.SECONDS);
    } finally {
      if (!attempt.isDone()) {
        try (var reader = new java.io.RandomAccessFile(fifo.toFile(), "rw")) {
          reader.write('x');
        }
      }
    }
  }

  private static FencedFileStore store(Path root) {
    return FileHarness.anyPathStore(root).auditLog(true).open();
  }

  @Test
  void aPipeInPlaceOfAMarkIsADamagedMarkNotAHang() throws Exception {
    Path root = dir.resolve("root");
    FencedFileStore files = store(root);
    files.write(token(10), "chat-1/a.md", "ten".getBytes());
    Path fifo;
    try (var marks = Files.list(root.resolve(".leasehold/marks"))) {
      fifo = marks.findFirst().orElseThrow(); // the one key's mark
    }
    mkfifo(fifo);
    assertThat(refusal(fifo, () -> files.write(token(11), "chat-1/a.md", "eleven".getBytes())))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("not a regular file")
        .hasMessageContaining("resetMark");
    assertThat(files.read("chat-1/a.md").orElseThrow().content()).isEqualTo("ten".getBytes());
  }

  @Test
  void aPipeInPlaceOfTheFileStoresLockOrAuditLogIsRefusedNotWaitedOn() throws Exception {
    Path root = dir.resolve("root");
    FencedFileStore files = store(root);
    files.write(token(3), "chat-1/a.md", "three".getBytes());
    for (String own : new String[] {"lock", "audit.log"}) {
      Path fifo = root.resolve(FencedFileStore.META_DIR).resolve(own);
      mkfifo(fifo);
      assertThat(refusal(fifo, () -> files.write(token(4), "chat-1/b.md", "four".getBytes())))
          .as(own)
          .isInstanceOf(ResourceAccessException.class)
          .hasMessageContaining("not a regular file")
          .hasMessageContaining("Move it aside");
      Files.delete(fifo);
    }
    assertThat(files.read("chat-1/b.md")).isEmpty();
    files.write(token(4), "chat-1/b.md", "four".getBytes());
  }

  @Test
  void aPipeInPlaceOfTheToolJournalOrItsMarksIsRefusedBeforeTheToolRuns() throws Exception {
    Path journal = dir.resolve("tools.jsonl");
    AtomicInteger runs = new AtomicInteger();
    FencedToolExecutor tools =
        TestTools.trustingExecutor(FileToolJournal.open(journal))
            .tool(
                FencedTool.of(
                    "count", a -> JsonNodeFactory.instance.numberNode(runs.incrementAndGet())))
            .build();
    tools.call(token(3), "count", JsonNodeFactory.instance.objectNode());
    Path mark = journal.resolveSibling("tools.jsonl.marks.d/marks/" + FileMarkStore.fileName(KEY));
    for (Path fifo : new Path[] {mark, journal}) {
      Path saved = Files.move(fifo, fifo.resolveSibling(fifo.getFileName() + ".saved"));
      mkfifo(fifo);
      assertThat(
              refusal(
                  fifo, () -> tools.call(token(4), "count", JsonNodeFactory.instance.objectNode())))
          .as(fifo.getFileName().toString())
          .isInstanceOf(ResourceAccessException.class)
          .hasMessageContaining("not a regular file");
      Files.delete(fifo);
      Files.move(saved, fifo);
    }
    assertThat(runs).hasValue(1);
  }
}
