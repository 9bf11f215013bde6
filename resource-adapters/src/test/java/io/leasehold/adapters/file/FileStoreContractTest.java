package io.leasehold.adapters.file;

import io.leasehold.adapters.FencedResourceContract;
import io.leasehold.adapters.HarnessFactories;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.CrossProcessGuardContract;
import io.leasehold.testkit.DamagedStateContract;
import io.leasehold.testkit.GuardHarness;
import io.leasehold.testkit.GuardHarnessFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.io.TempDir;

/** The guard contract for the file store, on a real file system. */
class FileStoreContractTest extends FencedResourceContract
    implements CrossProcessGuardContract,
        DamagedStateContract,
        io.leasehold.testkit.ScopeAndBoundsContract {
  @TempDir Path root;

  private Path fresh(String what) {
    return root.resolve(what + "-" + UUID.randomUUID());
  }

  @Override
  public GuardHarness scopedHarness() {
    return FileHarness.sessionDirectories(fresh("scoped"));
  }

  @Override
  public GuardHarness isolationHarness() {
    return new FileHarness(fresh("isolation"));
  }

  @Override
  public GuardHarness growthHarness(TokenVerifier verifier) {
    return new FileHarness(fresh("growth"), verifier);
  }

  /** Every byte under the root, the store's own directory included. */
  @Override
  public long stateSize(GuardHarness harness) {
    try (java.util.stream.Stream<Path> files = Files.walk(((FileHarness) harness).root())) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length() + 1).sum();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  public GuardHarness waitingHarness(java.time.Duration limit) {
    return FileHarness.waitingAtMost(fresh("waiting"), limit);
  }

  @Override
  public AutoCloseable stickPeer(GuardHarness harness, LeaseKey key) throws Exception {
    io.leasehold.testkit.ChildJvm holder =
        io.leasehold.testkit.ChildJvm.start(
            io.leasehold.adapters.LockHolderMain.class, lockFile(harness).toString());
    holder.awaitLine("LOCKED ", 30);
    return holder::kill;
  }

  @Override
  public String awaitedName(GuardHarness harness, LeaseKey key) {
    return lockFile(harness).toString();
  }

  private static Path lockFile(GuardHarness harness) {
    return ((FileHarness) harness).root().resolve(FencedFileStore.META_DIR).resolve("lock");
  }

  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    return new FileHarness(root, verifier);
  }

  @Override
  public Class<? extends GuardHarnessFactory> harnessFactory() {
    return HarnessFactories.Files.class;
  }

  @Override
  public String sharedStorage() {
    return root.resolve("shared-" + java.util.UUID.randomUUID()).toString();
  }

  @Override
  public GuardHarness damageableHarness() {
    return new FileHarness(root.resolve("damaged-" + java.util.UUID.randomUUID()));
  }

  @Override
  public Map<String, BiConsumer<GuardHarness, LeaseKey>> damages() {
    return Map.of(
        "both mark files deleted",
        (h, k) -> {
          deleteFile(marks(h, k, "marks"));
          deleteFile(marks(h, k, "marks-copy"));
        },
        "primary mark deleted",
        (h, k) -> deleteFile(marks(h, k, "marks")),
        "a lower value in the primary mark",
        (h, k) ->
            write(marks(h, k, "marks"), "3 " + new FencingToken(k, 3, new UUID(0, 3)).toText()),
        "garbage in the copy",
        (h, k) -> write(marks(h, k, "marks-copy"), "garbage"),
        "an empty primary",
        (h, k) -> write(marks(h, k, "marks"), ""));
  }

  private static Path marks(GuardHarness h, LeaseKey k, String dir) {
    return ((FileHarness) h)
        .root()
        .resolve(".leasehold")
        .resolve(dir)
        .resolve(FileMarkStore.fileName(k));
  }

  private static void deleteFile(Path p) {
    try {
      Files.delete(p);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void write(Path p, String text) {
    try {
      Files.writeString(p, text);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
