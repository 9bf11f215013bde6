package io.leasehold.examples.web;

import io.leasehold.examples.demo.DemoDatabases;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The web demo on a test class's database, on a free port, with 2 s leases: started before the
 * class's tests and closed after them. Register it after the database's extension.
 */
final class RunningWebDemo implements BeforeAllCallback, AfterAllCallback {
  private final TestDatabaseExtension db;
  private WebDemo demo;

  RunningWebDemo(TestDatabaseExtension db) {
    this.db = db;
  }

  /** Starts a web demo on the database; the caller closes it. */
  static WebDemo startOn(TestDatabase d) {
    return WebDemo.start(DemoDatabases.options(d, "--ttl", "2s"), 0);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    demo = startOn(db.database());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (demo != null) {
      demo.close();
    }
  }

  WebDemo demo() {
    return demo;
  }
}
