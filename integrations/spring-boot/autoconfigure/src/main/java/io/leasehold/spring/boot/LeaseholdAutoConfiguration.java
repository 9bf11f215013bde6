package io.leasehold.spring.boot;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.GuardBuilder;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreBuilder;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Leasehold for a Spring Boot application: a {@link LeaseStore} on the application's {@code
 * DataSource} (or on {@code leasehold.datasource.*}), closed before the {@code DataSource} when the
 * context closes, so its leases are released and the next process takes over at once; a token
 * verifier and guard beans when configured; and meters when Micrometer is present. The application
 * must declare an {@link AccessPolicy} bean (CONTRACT C8), as the store's builder requires one.
 *
 * <p>Every bean backs off when the application declares its own of the same type. The whole
 * configuration is off with {@code leasehold.enabled=false}.
 */
@AutoConfiguration(
    afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(LeaseStore.class)
@ConditionalOnBooleanProperty(name = "leasehold.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LeaseholdProperties.class)
public class LeaseholdAutoConfiguration {
  /** Creates the configuration; Spring calls it. */
  public LeaseholdAutoConfiguration() {}

  /**
   * The connections Leasehold uses: a pool of its own when {@code leasehold.datasource.url} is set,
   * else the application's {@code DataSource}.
   *
   * @param properties the properties
   * @param applicationDataSource the application's data source, if any
   * @return the data source
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public LeaseholdDataSource leaseholdDataSource(
      LeaseholdProperties properties, ObjectProvider<DataSource> applicationDataSource) {
    LeaseholdProperties.Datasource own = properties.getDatasource();
    if (own.getUrl() != null && !own.getUrl().isBlank()) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(own.getUrl());
      config.setUsername(own.getUsername());
      config.setPassword(own.getPassword());
      config.setMaximumPoolSize(own.getMaximumPoolSize());
      config.setConnectionTimeout(own.getConnectionTimeout().toMillis());
      config.setPoolName("leasehold");
      return LeaseholdDataSource.owned(new HikariDataSource(config));
    }
    DataSource shared = applicationDataSource.getIfUnique();
    if (shared == null) {
      throw new IllegalStateException(
          "Leasehold needs a DataSource: declare one (spring-boot-starter-jdbc and"
              + " spring.datasource.url), or give Leasehold a pool of its own with"
              + " leasehold.datasource.url, leasehold.datasource.username and leasehold.datasource.password;"
              + " or turn Leasehold off with leasehold.enabled=false");
    }
    return LeaseholdDataSource.shared(shared);
  }

  /**
   * The lease store, built from {@code leasehold.*}. Applies the schema first when {@code
   * leasehold.schema.apply=true}.
   *
   * @param properties the properties
   * @param dataSource the connections
   * @param accessPolicy the application's access policy (required)
   * @return the store; Spring closes it, and {@link #leaseholdShutdown} closes it earlier, before
   *     the data source
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public LeaseStore leaseStore(
      LeaseholdProperties properties,
      LeaseholdDataSource dataSource,
      ObjectProvider<AccessPolicy> accessPolicy) {
    AccessPolicy policy = accessPolicy.getIfUnique();
    if (policy == null) {
      throw new IllegalStateException(
          "Leasehold needs an AccessPolicy bean: declare @Bean AccessPolicy leasehold() { return (caller, key)"
              + " -> ...; } deciding whether an authenticated caller may run a session (CONTRACT C8), or"
              + " return AccessPolicy.allowAll() if callers are checked before the store");
    }
    LeaseSchema schema =
        new LeaseSchema(properties.getSchema().getTable(), properties.getSchema().getSequence());
    if (properties.getSchema().isApply()) {
      schema.apply(dataSource.dataSource());
    }
    LeaseStoreBuilder b =
        LeaseStore.builder(dataSource.dataSource()).schema(schema).accessPolicy(policy);
    // Each property left unset keeps the builder's default.
    setIfPresent(properties.getTtl(), b::ttl);
    setIfPresent(properties.getRenewInterval(), b::renewInterval);
    setIfPresent(properties.getSafetyMargin(), b::safetyMargin);
    setIfPresent(properties.getTakeoverDelay(), b::takeoverDelay);
    setIfPresent(properties.getLockTimeout(), b::lockTimeout);
    setIfPresent(properties.getStatementTimeout(), b::statementTimeout);
    setIfPresent(properties.getDefaultHolder(), b::defaultHolder);
    String signingKey = properties.getTokens().getSigningKey();
    if (signingKey != null && !signingKey.isBlank()) {
      b.tokenSigningKey(SigningKey.parse(signingKey));
    }
    return b.notifyChanges(properties.isNotifyChanges()).build();
  }

  /** Hands {@code value} to {@code setter} if it is set. */
  private static <T> void setIfPresent(T value, java.util.function.Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }

  /**
   * Closes every lease store of the context when the context stops, after the web server has
   * stopped taking requests and before any bean (the {@code DataSource} included) is destroyed.
   *
   * @param stores the context's lease stores
   * @return the lifecycle bean
   */
  @Bean
  public LeaseholdShutdown leaseholdShutdown(ObjectProvider<LeaseStore> stores) {
    return new LeaseholdShutdown(stores);
  }

  /**
   * How guard beans verify tokens, from {@code leasehold.tokens.verification}; no bean when unset.
   *
   * @param properties the properties
   * @param dataSource the connections, for "lease-table"
   * @return the verifier
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnClass(name = "io.leasehold.adapters.jdbc.LeaseTableVerifier")
  @org.springframework.boot.autoconfigure.condition.ConditionalOnProperty(
      name = "leasehold.tokens.verification")
  public TokenVerifier leaseholdTokenVerifier(
      LeaseholdProperties properties, LeaseholdDataSource dataSource) {
    LeaseholdProperties.Tokens t = properties.getTokens();
    return switch (t.getVerification()) {
      case "signed" -> {
        if (t.getVerificationKeys() == null || t.getVerificationKeys().isBlank()) {
          throw new IllegalStateException(
              "leasehold.tokens.verification=signed needs leasehold.tokens.verification-keys"
                  + " (the text TokenKeySet.toText() writes)");
        }
        yield TokenVerifier.signedBy(TokenKeySet.parse(t.getVerificationKeys()));
      }
      case "lease-table" ->
          io.leasehold.adapters.jdbc.LeaseTableVerifier.of(
              dataSource.dataSource(), properties.getSchema().getTable());
      case "trust-every-writer" -> TokenVerifier.trustEveryWriter();
      default ->
          throw new IllegalStateException(
              "leasehold.tokens.verification must be signed, lease-table or trust-every-writer, was '"
                  + t.getVerification()
                  + "'");
    };
  }

  /**
   * Meters for the store and the guards, and observations (tracing) for the store, when Micrometer
   * and leasehold-micrometer are present.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "io.micrometer.core.instrument.MeterRegistry",
        "io.leasehold.micrometer.LeaseholdMetrics"
      })
  static class Metrics {
    @Bean(destroyMethod = "close")
    LeaseholdMeters leaseholdMeters(
        ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registry,
        ObjectProvider<io.micrometer.observation.ObservationRegistry> observations,
        ObjectProvider<LeaseStore> stores) {
      return LeaseholdMeters.bind(
          registry.getIfUnique(), observations.getIfUnique(), stores.orderedStream().toList());
    }

    @Bean
    @ConditionalOnMissingBean
    GuardListener leaseholdGuardListener(
        ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registry) {
      io.micrometer.core.instrument.MeterRegistry r = registry.getIfUnique();
      return r == null
          ? GuardListener.NONE
          : io.leasehold.micrometer.LeaseholdMetrics.guardListener(r);
    }
  }

  /** Guard beans, when leasehold-resource-adapters is present and they are configured. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.leasehold.adapters.file.FencedFileStore")
  static class Guards {
    private final ObjectProvider<TokenVerifier> verifier;
    private final ObjectProvider<GuardListener> listener;

    /** Every guard takes the application's verifier and its listener, if any, from these. */
    Guards(ObjectProvider<TokenVerifier> verifier, ObjectProvider<GuardListener> listener) {
      this.verifier = verifier;
      this.listener = listener;
    }

    @Bean
    @ConditionalOnMissingBean
    @org.springframework.boot.autoconfigure.condition.ConditionalOnProperty(
        name = "leasehold.guards.file-store-root")
    io.leasehold.adapters.file.FencedFileStore leaseholdFileStore(LeaseholdProperties properties) {
      return verifiedAndHeard(
              io.leasehold.adapters.file.FencedFileStore.builder(
                  properties.getGuards().getFileStoreRoot()),
              "file store")
          .auditLog(properties.getGuards().isFileStoreAuditLog())
          .open();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "leasehold.guards.jdbc-writer")
    io.leasehold.adapters.jdbc.FencedJdbcWriter leaseholdJdbcWriter(
        LeaseholdProperties properties, LeaseholdDataSource dataSource) {
      applySchema(
          properties, dataSource, io.leasehold.adapters.jdbc.HighWaterSchema.defaults()::apply);
      return verifiedAndHeard(
              io.leasehold.adapters.jdbc.FencedJdbcWriter.builder(dataSource.dataSource()),
              "JDBC writer")
          .build();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "leasehold.guards.tool-executor")
    io.leasehold.adapters.tool.FencedToolExecutor leaseholdToolExecutor(
        LeaseholdProperties properties,
        LeaseholdDataSource dataSource,
        ObjectProvider<io.leasehold.adapters.tool.FencedTool> tools) {
      applySchema(
          properties, dataSource, io.leasehold.adapters.tool.ToolJournalSchema.defaults()::apply);
      io.leasehold.adapters.tool.FencedToolExecutor.Builder b =
          verifiedAndHeard(io.leasehold.adapters.tool.FencedToolExecutor.builder(), "tool executor")
              .journal(io.leasehold.adapters.tool.JdbcToolJournal.create(dataSource.dataSource()));
      tools.orderedStream().forEach(b::tool);
      return b.build();
    }

    /** Applies a guard's schema to the data source, where leasehold.schema.apply asks for it. */
    private static void applySchema(
        LeaseholdProperties properties,
        LeaseholdDataSource dataSource,
        Consumer<DataSource> schema) {
      if (properties.getSchema().isApply()) {
        schema.accept(dataSource.dataSource());
      }
    }

    /**
     * {@code builder} with the application's verifier, which every guard requires, and its guard
     * listener, or none.
     */
    private <B extends GuardBuilder<B>> B verifiedAndHeard(B builder, String guard) {
      TokenVerifier v = verifier.getIfUnique();
      if (v == null) {
        throw new IllegalStateException(
            "the Leasehold "
                + guard
                + " needs to know how to verify tokens (CONTRACT C15): set"
                + " leasehold.tokens.verification to signed (with leasehold.tokens.verification-keys),"
                + " lease-table or trust-every-writer, or declare a TokenVerifier bean");
      }
      return builder.verifier(v).listener(listener.getIfAvailable(() -> GuardListener.NONE));
    }
  }
}
