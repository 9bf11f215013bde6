package io.leasehold.adapters.tool;

import io.leasehold.adapters.FencedResourceContract;
import io.leasehold.testkit.GuardHarness;
import io.leasehold.fencing.TokenVerifier;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.io.TempDir;

/** The guard contract for the tool executor with its durable file journal. */
class ToolExecutorContractTest extends FencedResourceContract {
  @TempDir Path dir;

  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    return new ToolHarness(dir.resolve("tools.jsonl"), new ConcurrentHashMap<>(), verifier);
  }
}
