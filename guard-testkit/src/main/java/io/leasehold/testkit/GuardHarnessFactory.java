package io.leasehold.testkit;

/**
 * Opens a {@link GuardHarness} on shared storage in another JVM, for {@link
 * CrossProcessGuardContract}. Implementations are public classes with a public no-argument
 * constructor: the child JVM creates one by name.
 */
public interface GuardHarnessFactory {
  /**
   * Opens the guard on the storage the parent described.
   *
   * @param storage what {@link CrossProcessGuardContract#sharedStorage()} returned (a directory, a
   *     file, a JDBC URL with credentials: whatever the guard needs)
   * @return a harness on that storage
   */
  GuardHarness open(String storage);
}
