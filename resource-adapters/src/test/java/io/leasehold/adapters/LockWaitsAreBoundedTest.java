package io.leasehold.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.file.FileHarness;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.adapters.tool.TestTools;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.testkit.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27, finding 5 (CONTRACT C21): a file store write or a tool journal call waited without
 * limit while another process held the resource's lock file (still blocked after 8 s). Now each
 * wait ends at its timeout with an error that names the lock file and the holder's pid, and nothing
 * changed. A real second JVM holds the lock, as a stuck peer would.
 */
@Timeout(60)
class LockWaitsAreBoundedTest {
  private final LeaseKey key = LeaseKey.of("acct", "chat");

  @Test
  void aFileStoreWriteWaitsAtMostItsLockTimeout(@TempDir Path root) throws Exception {
    FencedFileStore store =
        FileHarness.anyPathStore(root).lockTimeout(Duration.ofMillis(300)).open();
    store.write(
        new FencingToken(key, 1, UUID.randomUUID()),
        "a.txt",
        "one".getBytes(StandardCharsets.UTF_8));
    Path lockFile = root.toRealPath().resolve(FencedFileStore.META_DIR).resolve("lock");
    assertRefusedWhileAnotherProcessHolds(
            lockFile,
            () ->
                store.write(
                    new FencingToken(key, 2, UUID.randomUUID()),
                    "a.txt",
                    "two".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("waited 300 ms");
    assertThat(store.highWaterMark(key)).hasValue(1);
    assertThat(store.read("a.txt").orElseThrow().content())
        .isEqualTo("one".getBytes(StandardCharsets.UTF_8));
    store.write(
        new FencingToken(key, 2, UUID.randomUUID()),
        "a.txt",
        "two".getBytes(StandardCharsets.UTF_8));
    assertThat(store.highWaterMark(key)).hasValue(2);
  }

  @Test
  void aToolJournalCallWaitsAtMostItsLockTimeoutAndTheToolDoesNotRun(@TempDir Path dir)
      throws Exception {
    Path journalFile = dir.toRealPath().resolve("tools.jsonl");
    AtomicInteger ran = new AtomicInteger();
    FencedTool tool =
        TestTools.tool(
            "send",
            invocation -> {
              ran.incrementAndGet();
              return JsonNodeFactory.instance.nullNode();
            });
    FencedToolExecutor tools =
        TestTools.trustingExecutor(
                FileToolJournal.open(journalFile, Clock.systemUTC(), Duration.ofMillis(300)))
            .tool(tool)
            .build();
    Path lockFile = journalFile.resolveSibling("tools.jsonl.lock");
    assertRefusedWhileAnotherProcessHolds(
        lockFile,
        () ->
            tools.call(
                new FencingToken(key, 1, UUID.randomUUID()),
                "send",
                JsonNodeFactory.instance.objectNode()));
    assertThat(ran).hasValue(0);
    tools.call(
        new FencingToken(key, 1, UUID.randomUUID()), "send", JsonNodeFactory.instance.objectNode());
    assertThat(ran).hasValue(1);
  }

  /**
   * While a second JVM holds {@code lockFile}, {@code call} fails with an error that names the file
   * and the holder's pid; the holder is gone after. Returns the error for more checks.
   */
  private static AbstractThrowableAssert<?, ? extends Throwable>
      assertRefusedWhileAnotherProcessHolds(Path lockFile, ThrowingCallable call) throws Exception {
    try (ChildJvm holder = ChildJvm.start(LockHolderMain.class, lockFile.toString())) {
      String pid = holder.awaitLine("LOCKED ", 30).substring("LOCKED ".length());
      Throwable thrown = catchThrowable(call);
      holder.kill();
      return assertThat(thrown)
          .isInstanceOf(ResourceAccessException.class)
          .hasMessageContaining(lockFile.toString())
          .hasMessageContaining("process " + pid);
    }
  }

  @Test
  void absurdLockTimeoutsAreRefused(@TempDir Path root) {
    assertThatThrownBy(() -> FencedFileStore.builder(root).lockTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> FileToolJournal.open(root.resolve("j"), Clock.systemUTC(), Duration.ofDays(2)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
