package io.leasehold.adapters.file;

import io.leasehold.fencing.TokenVerifier;
import io.leasehold.adapters.FencedResourceContract;
import io.leasehold.testkit.GuardHarness;
import io.leasehold.adapters.HarnessFactories;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.testkit.CrossProcessGuardContract;
import io.leasehold.testkit.DamagedStateContract;
import io.leasehold.testkit.GuardHarnessFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.io.TempDir;

/** The guard contract for the file store, on a real file system. */
class FileStoreContractTest extends FencedResourceContract
    implements CrossProcessGuardContract, DamagedStateContract {
  @TempDir Path root;

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
        "primary mark deleted", (h, k) -> deleteFile(marks(h, k, "marks")),
        "a lower value in the primary mark", (h, k) -> write(marks(h, k, "marks"), "3 " + new FencingToken(k, 3, new UUID(0, 3)).toText()),
        "garbage in the copy", (h, k) -> write(marks(h, k, "marks-copy"), "garbage"),
        "an empty primary", (h, k) -> write(marks(h, k, "marks"), ""));
  }

  private static Path marks(GuardHarness h, LeaseKey k, String dir) {
    return ((FileHarness) h).root().resolve(".leasehold").resolve(dir).resolve(MarkFiles.name(k));
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
