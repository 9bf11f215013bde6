package io.leasehold.lease.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.schema.LiquibaseChangelogs;
import io.leasehold.testing.TestDatabaseExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Setting up: a store without its schema names the repair, and applying the schema is quiet. In
 * this order: the second test applies the schema the first one needs missing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MissingSchemaTest {
  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();

  @Test
  @Order(1)
  void aStoreWithoutItsSchemaSaysWhichApplyToRun() {
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      assertThatThrownBy(() -> store.tryAcquire(LeaseKey.of("acct", "s"), "acct"))
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("leasehold_lease")
          .hasMessageContaining("LeaseSchema.defaults().apply(dataSource)");
      // The health probe reads through the table, so it names the same repair.
      assertThatThrownBy(store::databaseTime)
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("LeaseSchema.defaults().apply(dataSource)");
    }
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource())
            .schema(new LeaseSchema("other_lease", "other_seq"))
            .accessPolicy(AccessPolicy.allowAll())
            .build()) {
      assertThatThrownBy(() -> store.status(LeaseKey.of("acct", "s"), "acct"))
          .hasMessageContaining(
              "new LeaseSchema(\"other_lease\", \"other_seq\").apply(dataSource)");
    }
  }

  @Test
  @Order(2)
  void applyingTheSchemaPrintsNothingAndLogsTheDetailsAtFine() throws Exception {
    javax.sql.DataSource dataSource = db.dataSource();
    dataSource.getConnection().close(); // the pool's own start-up lines come before the capture
    PrintStream err = System.err;
    PrintStream out = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    Logger logger = Logger.getLogger(LiquibaseChangelogs.LOGGER);
    List<LogRecord> records = new ArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            records.add(r);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Level before = logger.getLevel();
    logger.addHandler(capture);
    logger.setLevel(Level.FINE);
    try {
      PrintStream capturing = new PrintStream(printed, true, StandardCharsets.UTF_8);
      System.setErr(capturing);
      System.setOut(capturing);
      LeaseSchema.defaults().apply(dataSource);
    } finally {
      System.setErr(err);
      System.setOut(out);
      logger.removeHandler(capture);
      logger.setLevel(before);
    }
    assertThat(printed.toString(StandardCharsets.UTF_8)).isEmpty();
    assertThat(records).as("the details, for whoever enables FINE").isNotEmpty();
    assertThat(records).allMatch(r -> r.getLevel().intValue() <= Level.FINE.intValue());
  }
}
