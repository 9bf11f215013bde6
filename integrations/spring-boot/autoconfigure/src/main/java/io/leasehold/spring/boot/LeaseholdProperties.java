package io.leasehold.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code leasehold.*} properties. Durations left unset take the lease store's defaults (see
 * {@code io.leasehold.lease.LeaseStoreBuilder}); the store checks them together when it is built,
 * and a bad combination fails start-up with the store's own message.
 */
@ConfigurationProperties(prefix = "leasehold")
public class LeaseholdProperties {
  /** Properties at their defaults; Spring binds {@code leasehold.*} onto them. */
  public LeaseholdProperties() {}

  /** Whether to configure Leasehold at all. */
  private boolean enabled = true;

  /** How long a lease lasts without renewal. Default 30 s. */
  private Duration ttl;

  /** How often the keeper renews held leases. Default a third of the TTL. */
  private Duration renewInterval;

  /** Time kept in reserve before a lease's local deadline. Default a tenth of the TTL. */
  private Duration safetyMargin;

  /** How long an expired (not released) key stays unacquirable. Default zero. */
  private Duration takeoverDelay;

  /** PostgreSQL lock_timeout of every statement. Default the smaller of 1 s and TTL/10. */
  private Duration lockTimeout;

  /** PostgreSQL statement_timeout of every statement. Default the smaller of 5 s and TTL/4. */
  private Duration statementTimeout;

  /** Publish acquires, takeovers and releases with pg_notify, for live status. */
  private boolean notifyChanges;

  /** The holder name recorded for acquires that name none. Default host name and process id. */
  private String defaultHolder;

  private final Schema schema = new Schema();
  private final Datasource datasource = new Datasource();
  private final Tokens tokens = new Tokens();
  private final Guards guards = new Guards();
  private final Health health = new Health();
  private final Admin admin = new Admin();

  /** The lease table. */
  public static class Schema {
    /** Properties at their defaults. */
    public Schema() {}

    /** The lease table's name. */
    private String table = "leasehold_lease";

    /** The fence sequence's name. */
    private String sequence = "leasehold_fence_seq";

    /**
     * Apply the Leasehold schema (lease table, and the tables of the configured guards) at
     * start-up, through Liquibase. Off by default: include the changelogs in the application's own
     * Liquibase changelog instead, or apply them once by hand.
     */
    private boolean apply;

    public String getTable() {
      return table;
    }

    public void setTable(String table) {
      this.table = table;
    }

    public String getSequence() {
      return sequence;
    }

    public void setSequence(String sequence) {
      this.sequence = sequence;
    }

    public boolean isApply() {
      return apply;
    }

    public void setApply(boolean apply) {
      this.apply = apply;
    }
  }

  /** A connection pool of Leasehold's own, instead of the application's DataSource. */
  public static class Datasource {
    /** Properties at their defaults. */
    public Datasource() {}

    /**
     * JDBC URL. When set, Leasehold uses a pool of its own instead of the application's DataSource.
     */
    private String url;

    /** Database user. */
    private String username;

    /** Database password. */
    private String password;

    /** Most connections in the pool. */
    private int maximumPoolSize = 10;

    /**
     * How long an operation waits for a connection before it fails. Shorter than HikariCP's 30 s
     * default: a lease operation that waits longer than its TTL is of no use, and a health check
     * must answer while the database is away.
     */
    private Duration connectionTimeout = Duration.ofSeconds(5);

    public Duration getConnectionTimeout() {
      return connectionTimeout;
    }

    public void setConnectionTimeout(Duration connectionTimeout) {
      this.connectionTimeout = connectionTimeout;
    }

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }

    public int getMaximumPoolSize() {
      return maximumPoolSize;
    }

    public void setMaximumPoolSize(int maximumPoolSize) {
      this.maximumPoolSize = maximumPoolSize;
    }
  }

  /** Fencing tokens: signing by the store, verification by the guards (CONTRACT C15). */
  public static class Tokens {
    /** Properties at their defaults. */
    public Tokens() {}

    /**
     * The store's signing key, in the text form SigningKey.toText() writes. Keep it secret (an
     * environment variable or a secret store, not a file in the repository).
     */
    private String signingKey;

    /**
     * How guard beans verify tokens, unless the application declares a TokenVerifier bean: "signed"
     * (needs verification-keys), "lease-table" (asks the lease table of this database), or
     * "trust-every-writer" (every writer is trusted code). Unset: no verifier, and a configured
     * guard fails start-up saying how to choose.
     */
    private String verification;

    /** The verification keys, in the text form TokenKeySet.toText() writes; for "signed". */
    private String verificationKeys;

    public String getSigningKey() {
      return signingKey;
    }

    public void setSigningKey(String signingKey) {
      this.signingKey = signingKey;
    }

    public String getVerification() {
      return verification;
    }

    public void setVerification(String verification) {
      this.verification = verification;
    }

    public String getVerificationKeys() {
      return verificationKeys;
    }

    public void setVerificationKeys(String verificationKeys) {
      this.verificationKeys = verificationKeys;
    }
  }

  /** Guards that become beans when configured. */
  public static class Guards {
    /** Properties at their defaults. */
    public Guards() {}

    /** A FencedFileStore bean on this directory. */
    private Path fileStoreRoot;

    /** Keep the file store's audit log. */
    private boolean fileStoreAuditLog;

    /** A FencedJdbcWriter bean on the lease store's DataSource. */
    private boolean jdbcWriter;

    /**
     * A FencedToolExecutor bean, with every FencedTool bean of the application and a journal in the
     * database (the tool-journal tables).
     */
    private boolean toolExecutor;

    public Path getFileStoreRoot() {
      return fileStoreRoot;
    }

    public void setFileStoreRoot(Path fileStoreRoot) {
      this.fileStoreRoot = fileStoreRoot;
    }

    public boolean isFileStoreAuditLog() {
      return fileStoreAuditLog;
    }

    public void setFileStoreAuditLog(boolean fileStoreAuditLog) {
      this.fileStoreAuditLog = fileStoreAuditLog;
    }

    public boolean isJdbcWriter() {
      return jdbcWriter;
    }

    public void setJdbcWriter(boolean jdbcWriter) {
      this.jdbcWriter = jdbcWriter;
    }

    public boolean isToolExecutor() {
      return toolExecutor;
    }

    public void setToolExecutor(boolean toolExecutor) {
      this.toolExecutor = toolExecutor;
    }
  }

  /** The health indicator. */
  public static class Health {
    /** Properties at their defaults. */
    public Health() {}

    /**
     * Keeper lag past which health is DOWN while leases are kept. Default twice the renew interval:
     * one missed round is noise, two mean leases are about to be lost.
     */
    private Duration maxKeeperLag;

    public Duration getMaxKeeperLag() {
      return maxKeeperLag;
    }

    public void setMaxKeeperLag(Duration maxKeeperLag) {
      this.maxKeeperLag = maxKeeperLag;
    }
  }

  /** Administrative operations over actuator. */
  public static class Admin {
    /** Properties at their defaults. */
    public Admin() {}

    /**
     * Offer force release over the "leaseholdadmin" actuator endpoint. Off by default; even when
     * on, each call goes through the access policy (FORCE_RELEASE) and is audited.
     */
    private boolean forceReleaseEnabled;

    public boolean isForceReleaseEnabled() {
      return forceReleaseEnabled;
    }

    public void setForceReleaseEnabled(boolean forceReleaseEnabled) {
      this.forceReleaseEnabled = forceReleaseEnabled;
    }
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Duration getTtl() {
    return ttl;
  }

  public void setTtl(Duration ttl) {
    this.ttl = ttl;
  }

  public Duration getRenewInterval() {
    return renewInterval;
  }

  public void setRenewInterval(Duration renewInterval) {
    this.renewInterval = renewInterval;
  }

  public Duration getSafetyMargin() {
    return safetyMargin;
  }

  public void setSafetyMargin(Duration safetyMargin) {
    this.safetyMargin = safetyMargin;
  }

  public Duration getTakeoverDelay() {
    return takeoverDelay;
  }

  public void setTakeoverDelay(Duration takeoverDelay) {
    this.takeoverDelay = takeoverDelay;
  }

  public Duration getLockTimeout() {
    return lockTimeout;
  }

  public void setLockTimeout(Duration lockTimeout) {
    this.lockTimeout = lockTimeout;
  }

  public Duration getStatementTimeout() {
    return statementTimeout;
  }

  public void setStatementTimeout(Duration statementTimeout) {
    this.statementTimeout = statementTimeout;
  }

  public boolean isNotifyChanges() {
    return notifyChanges;
  }

  public void setNotifyChanges(boolean notifyChanges) {
    this.notifyChanges = notifyChanges;
  }

  public String getDefaultHolder() {
    return defaultHolder;
  }

  public void setDefaultHolder(String defaultHolder) {
    this.defaultHolder = defaultHolder;
  }

  public Schema getSchema() {
    return schema;
  }

  public Datasource getDatasource() {
    return datasource;
  }

  public Tokens getTokens() {
    return tokens;
  }

  public Guards getGuards() {
    return guards;
  }

  public Health getHealth() {
    return health;
  }

  public Admin getAdmin() {
    return admin;
  }
}
