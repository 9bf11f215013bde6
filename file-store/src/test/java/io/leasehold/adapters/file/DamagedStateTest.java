package io.leasehold.adapters.file;

import static io.leasehold.adapters.file.FileHarness.anyPathStore;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;
import java.util.UUID;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the tests that damage a file store's own state share (CONTRACT C16): a store at {@code root}
 * under a fresh directory, opened again by each test class's own {@link #open(Path)}.
 */
abstract class DamagedStateTest {
  static final LeaseKey KEY = LeaseKey.of("acct", "chat-1");

  @TempDir Path dir;
  Path root;
  FencedFileStore store;

  @BeforeEach
  void openStore() {
    root = dir.resolve("root");
    store = open(root);
  }

  /** The store under test, at {@code root}: also used to reopen it after damage. */
  abstract FencedFileStore open(Path root);

  /**
   * A store with any path of any key, trusting every writer, with operator {@code ops}: the
   * configuration most of these tests damage.
   */
  static FencedFileStore openForOperators(Path root) {
    return anyPathStore(root).adminPolicy(AdminPolicy.operators(Set.of("ops"))).open();
  }

  static FencingToken token(LeaseKey key, long fence) {
    return new FencingToken(
        key, fence, UUID.nameUUIDFromBytes((key + "/" + fence).getBytes(StandardCharsets.UTF_8)));
  }

  /** Fence 5's write of {@code chat-1/new.md}, a path {@link #KEY} never wrote: refused. */
  AbstractThrowableAssert<?, ? extends Throwable> assertStaleWriteOfANewPath() {
    return assertThatThrownBy(
        () -> store.write(token(KEY, 5), "chat-1/new.md", "five".getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Fence 5's write of a new path is refused until an operator repairs the key: the message says
   * each of {@code why} and names the command that repairs it.
   */
  void assertStaleWriteOfANewPathAwaitsTheOperator(String... why) {
    AbstractThrowableAssert<?, ? extends Throwable> refused =
        assertStaleWriteOfANewPath()
            .isInstanceOf(ResourceAccessException.class)
            .hasMessageContaining("ResetMarkCommand");
    for (String part : why) {
      refused.hasMessageContaining(part);
    }
  }

  String content(String path) {
    return new String(store.read(path).orElseThrow().content(), StandardCharsets.UTF_8);
  }
}
