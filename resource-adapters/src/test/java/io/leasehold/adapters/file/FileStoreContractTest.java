package io.leasehold.adapters.file;

import io.leasehold.fencing.TokenVerifier;
import io.leasehold.adapters.FencedResourceContract;
import io.leasehold.testkit.GuardHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The guard contract for the file store, on a real file system. */
class FileStoreContractTest extends FencedResourceContract {
  @TempDir Path root;

  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    return new FileHarness(root, verifier);
  }
}
