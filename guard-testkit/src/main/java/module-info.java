/**
 * The guard contract suite, for anyone who writes a guard: JUnit 5 tests to implement, and the
 * child-JVM launcher they use.
 */
module io.leasehold.testkit {
  requires transitive io.leasehold.fencing;
  requires transitive org.junit.jupiter.api;
  requires transitive org.junit.jupiter.params;
  requires transitive org.assertj.core;

  exports io.leasehold.testkit;

  // JUnit discovers and calls the contract tests reflectively.
  opens io.leasehold.testkit to
      org.junit.platform.commons;
}
