package io.leasehold.examples.demo;

import io.leasehold.testing.TestDatabase;

/** The demos' options for a test database: its URL and credentials, then the test's own. */
public final class DemoDatabases {
  private DemoDatabases() {}

  /**
   * The command line naming {@code db}, followed by {@code more}.
   *
   * @param db the test database
   * @param more the test's further options
   * @return the arguments
   */
  public static String[] args(TestDatabase db, String... more) {
    String[] base = {
      "--jdbc-url", db.jdbcUrl(), "--user", db.server().user(), "--password", db.server().password()
    };
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  /**
   * The demo options for {@code db} and {@code more}.
   *
   * @param db the test database
   * @param more the test's further options
   * @return the options
   */
  public static DemoOptions options(TestDatabase db, String... more) {
    return DemoOptions.parse(args(db, more));
  }
}
