package example.boot;

import io.leasehold.devdb.LocalPostgres;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.spring.boot.LeaseholdAutoConfiguration;
import io.leasehold.spring.boot.LeaseholdHealthIndicator;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** The starter on the module path: the store comes from Leasehold's auto-configuration. */
@SpringBootApplication
public class Main {
  /** The application's authorization decision, which the starter requires. */
  @Bean
  AccessPolicy accessPolicy() {
    return AccessPolicy.callerOwnsAccount();
  }

  public static void main(String[] args) throws Exception {
    try (LocalPostgres pg = LocalPostgres.start()) {
      try (Connection c = pg.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute(LeaseSchema.defaults().sqlScript());
      }
      SpringApplication app = new SpringApplication(Main.class);
      app.setWebApplicationType(WebApplicationType.NONE);
      app.setDefaultProperties(
          Map.of(
              "spring.datasource.url", pg.jdbcUrl(),
              "spring.datasource.username", pg.user(),
              "spring.datasource.password", pg.password()));
      long fence;
      try (ConfigurableApplicationContext context = app.run(args)) {
        LeaseStore store = context.getBean(LeaseStore.class);
        Lease lease = store.tryAcquire(LeaseKey.of("acct-7", "chat-1"), "acct-7").acquiredLease().orElseThrow();
        fence = lease.fence();
        boolean denied;
        try {
          store.tryAcquire(LeaseKey.of("acct-8", "chat-1"), "acct-7");
          denied = false;
        } catch (io.leasehold.lease.AccessDeniedException e) {
          denied = true;
        }
        String health = context.getBean(LeaseholdHealthIndicator.class).health().getStatus().getCode();
        Module configuration = LeaseholdAutoConfiguration.class.getModule();
        System.out.println("MODULAR SPRING OK: fence " + fence + " from the auto-configured store"
            + ", other account denied " + denied + ", health " + health + ", configured by module " + configuration.getName()
            + (configuration.getDescriptor().isAutomatic() ? " (automatic)" : " (declared)"));
      }
    }
  }
}
