package io.leasehold.lease.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.PostgresServer;
import io.leasehold.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Liquibase changelog and the plain SQL file produce the same schema (Liquibase's own history
 * tables aside), for default and custom names.
 */
class LeaseSchemaTest {
  private static final String CATALOG =
      "SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' null='"
          + " || is_nullable || ' default=' || coalesce(column_default, '-')"
          + " || ' collation=' || coalesce(collation_name, '-')"
          + " FROM information_schema.columns WHERE table_schema = 'public' AND table_name LIKE '%lease%'"
          + " AND table_name NOT LIKE '%changelog%'"
          + " UNION ALL SELECT 'constraint ' || conname || ' ' || pg_get_constraintdef(oid)"
          + " FROM pg_constraint WHERE connamespace = 'public'::regnamespace"
          + " AND conname NOT LIKE '%changelog%'"
          + " UNION ALL SELECT 'index ' || indexname || ' ' || indexdef FROM pg_indexes"
          + " WHERE schemaname = 'public' AND tablename LIKE '%lease%'"
          + " AND tablename NOT LIKE '%changelog%'"
          + " UNION ALL SELECT 'sequence ' || sequencename || ' ' || data_type || ' start=' || start_value"
          + " || ' min=' || min_value || ' inc=' || increment_by || ' cache=' || cache_size"
          + " || ' cycle=' || cycle FROM pg_sequences WHERE schemaname = 'public'"
          + " UNION ALL SELECT 'options ' || relname || ' ' || array_to_string(reloptions, ',') FROM pg_class"
          + " WHERE relnamespace = 'public'::regnamespace AND reloptions IS NOT NULL"
          + " UNION ALL SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal"
          // The fence sequence belongs to its table's fence column (change set 7).
          + " UNION ALL SELECT 'owned ' || s.relname || ' by ' || t.relname || '.' || a.attname"
          + " FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'"
          + " JOIN pg_class t ON t.oid = d.refobjid"
          + " JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid"
          + " WHERE d.classid = 'pg_class'::regclass AND d.deptype = 'a'"
          + " AND s.relnamespace = 'public'::regnamespace"
          + " UNION ALL SELECT 'function ' || proname || ' ' || md5(prosrc) FROM pg_proc"
          + " WHERE pronamespace = 'public'::regnamespace"
          + " ORDER BY 1";

  @Test
  void liquibaseAndPlainSqlProduceTheSameCatalog() throws Exception {
    LeaseSchema custom = new LeaseSchema("agent_lease", "agent_fence_seq");
    try (TestDatabase viaLiquibase = PostgresServer.shared().createDatabase(null, ds -> {});
        TestDatabase viaSql = PostgresServer.shared().createDatabase(null, ds -> {})) {
      LeaseSchema.defaults().apply(viaLiquibase.dataSource());
      custom.apply(viaLiquibase.dataSource());
      // Applying again is a no-op.
      LeaseSchema.defaults().apply(viaLiquibase.dataSource());

      try (Connection c = viaSql.newConnection();
          Statement s = c.createStatement()) {
        s.execute(LeaseSchema.defaults().sqlScript());
        s.execute(custom.sqlScript());
      }
      List<String> fromLiquibase = catalog(viaLiquibase);
      List<String> fromSql = catalog(viaSql);
      assertThat(fromLiquibase).isEqualTo(fromSql);
      assertThat(fromSql)
          .anyMatch(
              l -> l.startsWith("sequence leasehold_fence_seq bigint start=1 min=1 inc=1 cache=1"))
          .anyMatch(l -> l.startsWith("sequence agent_fence_seq"))
          .anyMatch(l -> l.contains("leasehold_lease_pkey PRIMARY KEY (account_id, session_id)"))
          .anyMatch(l -> l.startsWith("column agent_lease.run_id uuid null=NO"))
          // Change set 6: the key columns compare byte by byte, whatever the database's locale.
          .anyMatch(
              l -> l.equals("column leasehold_lease.account_id text null=NO default=- collation=C"))
          .anyMatch(
              l -> l.equals("column agent_lease.session_id text null=NO default=- collation=C"))
          .anyMatch(l -> l.startsWith("column agent_lease.took_over boolean null=NO"))
          // Change set 4 dropped them: no check constraint, trigger or function is left behind.
          .noneMatch(l -> l.contains("_check"))
          .noneMatch(l -> l.startsWith("trigger "))
          .noneMatch(l -> l.startsWith("function "))
          .anyMatch(l -> l.equals("options agent_lease fillfactor=70"))
          .anyMatch(l -> l.equals("owned leasehold_fence_seq by leasehold_lease.fence"))
          .anyMatch(l -> l.equals("owned agent_fence_seq by agent_lease.fence"));

      // A store on the custom names works in both databases.
      for (TestDatabase db : List.of(viaLiquibase, viaSql)) {
        try (LeaseStore store =
            LeaseStore.builder(db.dataSource())
                .schema(custom)
                .accessPolicy(AccessPolicy.allowAll())
                .build()) {
          assertThat(store.tryAcquire(LeaseKey.of("a", "s"), "a"))
              .isInstanceOf(AcquireResult.Acquired.class);
        }
      }
    }
  }

  private static List<String> catalog(TestDatabase db) throws Exception {
    List<String> lines = new ArrayList<>();
    try (Connection c = db.newConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(CATALOG)) {
      while (r.next()) {
        lines.add(r.getString(1));
      }
    }
    return lines;
  }
}
