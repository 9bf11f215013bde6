package io.leasehold.adapters.tool;

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
import io.leasehold.testkit.ThrownErrorContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.io.TempDir;

/** The guard contract for the tool executor with its durable file journal. */
class ToolExecutorContractTest extends FencedResourceContract
    implements CrossProcessGuardContract,
        ThrownErrorContract,
        DamagedStateContract,
        io.leasehold.testkit.ScopeAndBoundsContract {
  @TempDir Path dir;

  private Path fresh(String what) {
    return dir.resolve(what + "-" + UUID.randomUUID() + ".jsonl");
  }

  @Override
  public GuardHarness scopedHarness() {
    return new ToolHarness(
        fresh("scoped"),
        new ConcurrentHashMap<>(),
        TokenVerifier.trustEveryWriter(),
        RegisterToolHarness.OWN_REGISTER,
        java.time.Duration.ofSeconds(30));
  }

  @Override
  public GuardHarness isolationHarness() {
    return new ToolHarness(fresh("isolation"), new ConcurrentHashMap<>());
  }

  @Override
  public GuardHarness growthHarness(TokenVerifier verifier) {
    return new ToolHarness(fresh("growth"), new ConcurrentHashMap<>(), verifier);
  }

  /** The journal, its marks file and anything else beside them. */
  @Override
  public long stateSize(GuardHarness harness) {
    Path journal = ((ToolHarness) harness).journalFile();
    try (java.util.stream.Stream<Path> files = Files.list(journal.getParent())) {
      return files
          .filter(p -> p.getFileName().toString().startsWith(journal.getFileName().toString()))
          .mapToLong(p -> p.toFile().length() + 1)
          .sum();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  public GuardHarness waitingHarness(java.time.Duration limit) {
    return new ToolHarness(
        fresh("waiting"),
        new ConcurrentHashMap<>(),
        TokenVerifier.trustEveryWriter(),
        io.leasehold.adapters.tool.ToolScope.anyCall(),
        limit);
  }

  @Override
  public AutoCloseable stickPeer(GuardHarness harness, LeaseKey key) throws Exception {
    io.leasehold.testkit.ChildJvm holder =
        io.leasehold.testkit.ChildJvm.start(
            io.leasehold.adapters.LockHolderMain.class, awaitedName(harness, key));
    holder.awaitLine("LOCKED ", 30);
    return holder::kill;
  }

  @Override
  public String awaitedName(GuardHarness harness, LeaseKey key) {
    Path journal = ((ToolHarness) harness).journalFile();
    try {
      return journal.getParent().toRealPath().resolve(journal.getFileName() + ".lock").toString();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    return new ToolHarness(dir.resolve("tools.jsonl"), new ConcurrentHashMap<>(), verifier);
  }

  @Override
  public Class<? extends GuardHarnessFactory> harnessFactory() {
    return HarnessFactories.ToolFile.class;
  }

  @Override
  public String sharedStorage() {
    return dir.resolve("shared-" + UUID.randomUUID() + ".jsonl").toString();
  }

  @Override
  public GuardHarness throwingHarness() {
    return new ToolHarness(
        dir.resolve("thrown-" + UUID.randomUUID() + ".jsonl"), new ConcurrentHashMap<>());
  }

  @Override
  public void writeThrowing(
      GuardHarness harness, LeaseKey key, FencingToken token, Throwable thrown) {
    ((ToolHarness) harness).writeThrowing(key, token, thrown);
  }

  private Path damagedJournal;

  @Override
  public GuardHarness damageableHarness() {
    damagedJournal = dir.resolve("damaged-" + UUID.randomUUID() + ".jsonl");
    return new ToolHarness(damagedJournal, new ConcurrentHashMap<>());
  }

  @Override
  public Map<String, BiConsumer<GuardHarness, LeaseKey>> damages() {
    return Map.of(
        "journal truncated to nothing", (h, k) -> rewrite(damagedJournal, ""),
        "journal deleted", (h, k) -> delete(damagedJournal),
        "a garbage line appended", (h, k) -> append(damagedJournal, "{garbage\n"),
        "mark directory deleted, journal truncated",
            (h, k) -> {
              deleteTree(Path.of(damagedJournal + ".marks.d"));
              rewrite(damagedJournal, "");
            },
        "one copy of the mark deleted, the other lowered",
            (h, k) -> {
              delete(Path.of(damagedJournal + ".marks.d/marks/" + FileMarkStore.fileName(k)));
              rewrite(
                  Path.of(damagedJournal + ".marks.d/marks-copy/" + FileMarkStore.fileName(k)),
                  "3 " + new FencingToken(k, 3, new UUID(0, 3)).unsigned().toText() + "\n");
            });
  }

  private static void rewrite(Path p, String text) {
    try {
      Files.writeString(p, text);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void append(Path p, String text) {
    try {
      Files.writeString(p, text, java.nio.file.StandardOpenOption.APPEND);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path p) {
    try (var paths = Files.walk(p)) {
      for (Path each : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(each);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void delete(Path p) {
    try {
      Files.delete(p);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
