package example;

import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The file store on the module path from its own artifact, with neither pgjdbc, Leasehold's schema
 * support, Liquibase, Jackson nor resource-adapters: a write admitted, a stale one refused, and the
 * descriptor's promises checked from inside the module graph.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    String[] absentModules = {
      "org.postgresql.jdbc", "io.leasehold.schema", "liquibase.core", "com.fasterxml.jackson.databind",
      "io.leasehold.adapters"
    };
    for (String absent : absentModules) {
      if (ModuleLayer.boot().findModule(absent).isPresent()) {
        throw new AssertionError(absent + " is on the module path; this build must run without it");
      }
    }
    Module fileStore = FencedFileStore.class.getModule();
    if (!fileStore.getName().equals("io.leasehold.adapters.file")) {
      throw new AssertionError("FencedFileStore is in module " + fileStore.getName());
    }
    for (String closed : new String[] {"io.leasehold.adapters.file.internal", "io.leasehold.adapters.mark"}) {
      if (fileStore.isExported(closed) || fileStore.isOpen(closed)) {
        throw new AssertionError(closed + " is exported to every module");
      }
    }
    Path root = Files.createTempDirectory(Path.of("target"), "files");
    LeaseKey key = LeaseKey.of("acct-7", "chat-1");
    FencedFileStore files = FencedFileStore.open(root, TokenVerifier.trustEveryWriter());
    files.write(new FencingToken(key, 5, UUID.randomUUID()), "acct-7/chat-1/answer.md", "five".getBytes(StandardCharsets.UTF_8));
    String refused;
    try {
      files.write(new FencingToken(key, 3, UUID.randomUUID()), "acct-7/chat-1/answer.md", "three".getBytes(StandardCharsets.UTF_8));
      throw new AssertionError("fence 3 was admitted after fence 5");
    } catch (StaleFenceException e) {
      refused = e.getClass().getSimpleName();
    }
    String content = new String(files.read("acct-7/chat-1/answer.md").orElseThrow().content(), StandardCharsets.UTF_8);
    System.out.println("MODULAR FILES OK: fence 5 wrote '" + content + "', fence 3 refused (" + refused
        + "), without pgjdbc, Liquibase, Jackson and resource-adapters, internal packages not exported");
  }
}
