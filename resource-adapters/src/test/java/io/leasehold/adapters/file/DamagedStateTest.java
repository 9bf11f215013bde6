package io.leasehold.adapters.file;

import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;
import java.util.UUID;
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
    return FencedFileStore.builder(root)
        .pathScope(PathScope.anyPath())
        .verifier(TokenVerifier.trustEveryWriter())
        .adminPolicy(AdminPolicy.operators(Set.of("ops")))
        .open();
  }

  static FencingToken token(LeaseKey key, long fence) {
    return new FencingToken(
        key, fence, UUID.nameUUIDFromBytes((key + "/" + fence).getBytes(StandardCharsets.UTF_8)));
  }

  String content(String path) {
    return new String(store.read(path).orElseThrow().content(), StandardCharsets.UTF_8);
  }
}
