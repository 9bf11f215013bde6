package io.leasehold.adapters.file;

import static io.leasehold.adapters.file.FileHarness.anyPathStore;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.UUID;

/**
 * Child process of {@link FileStoreCrashTest}: writes one large file over and over, each version
 * filled with one byte derived from its fence, until it is killed. Arguments: root, first fence.
 */
public final class CrashingWriterMain {
  static final int SIZE = 16 << 20;

  private CrashingWriterMain() {}

  static byte fill(long fence) {
    return (byte) (fence % 251);
  }

  public static void main(String[] args) {
    FencedFileStore store = anyPathStore(Path.of(args[0])).open();
    LeaseKey key = LeaseKey.of("acct", "crash");
    byte[] content = new byte[SIZE];
    for (long fence = Long.parseLong(args[1]); ; fence++) {
      Arrays.fill(content, fill(fence));
      store.write(new FencingToken(key, fence, UUID.randomUUID()), "big.bin", content);
      System.out.println("WROTE " + fence);
      System.out.flush();
    }
  }
}
