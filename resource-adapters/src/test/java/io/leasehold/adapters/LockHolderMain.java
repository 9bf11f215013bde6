package io.leasehold.adapters;

import io.leasehold.adapters.file.internal.CrossProcessLock;
import java.nio.file.Path;

/**
 * Child process of {@link LockWaitsAreBoundedTest}: takes a resource's lock the way the adapters do
 * and holds it until killed, as a stuck peer would. Argument: the lock file.
 */
public final class LockHolderMain {
  private LockHolderMain() {}

  public static void main(String[] args) throws Exception {
    new CrossProcessLock(Path.of(args[0]))
        .call(
            () -> {
              System.out.println("LOCKED " + ProcessHandle.current().pid());
              System.out.flush();
              try {
                Thread.sleep(Long.MAX_VALUE);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return null;
            });
  }
}
