package io.leasehold.benchmarks;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.LeaseSchema;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * The exact statements the lease store sends, for the benchmarks that issue them from a bare JDBC
 * loop (the floor of the library's own overhead). They are package-private in leasehold-core,
 * which is right for users; the benchmarks, run on the class path, read them by reflection rather
 * than put a class into the store's package.
 */
final class LeaseStatements {
  private static final String LEASE_SQL = "io.leasehold.lease.LeaseSql";

  private final Object sql;

  LeaseStatements(Duration lockTimeout, Duration statementTimeout) {
    this(lockTimeout, statementTimeout, false);
  }

  LeaseStatements(Duration lockTimeout, Duration statementTimeout, boolean notify) {
    this(lockTimeout, statementTimeout, notify, false);
  }

  /**
   * @param dedicated true for the statements of a store on a dedicated pool: no opening, the
   *     timeouts set once per connection by {@link #sessionTimeouts()}
   */
  LeaseStatements(Duration lockTimeout, Duration statementTimeout, boolean notify, boolean dedicated) {
    try {
      Constructor<?> c =
          Class.forName(LEASE_SQL)
              .getDeclaredConstructor(LeaseSchema.class, Duration.class, Duration.class, boolean.class, boolean.class);
      c.setAccessible(true);
      this.sql = c.newInstance(LeaseSchema.defaults(), lockTimeout, statementTimeout, notify, dedicated);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("could not read the store's statements from " + LEASE_SQL, e);
    }
  }

  String acquire() {
    return field("acquire");
  }

  String acquireNew() {
    return field("acquireNew");
  }

  /** The notifications of a publishing store, sent after the changes committed; null if not publishing. */
  String publish() {
    return field("publish");
  }

  /** The session settings of a dedicated pool's connection, or null. */
  String sessionTimeouts() {
    return field("sessionTimeouts");
  }

  String release() {
    return field("release");
  }

  String releaseHolding() {
    return field("releaseHolding");
  }

  String status() {
    return field("status");
  }

  String renew() {
    return field("renew");
  }

  private String field(String name) {
    try {
      var f = sql.getClass().getDeclaredField(name);
      f.setAccessible(true);
      return (String) f.get(sql);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("could not read " + LEASE_SQL + "." + name, e);
    }
  }

  /** Binds the first-acquire statement's parameters, as the store does. */
  static void bindAcquireNew(PreparedStatement ps, String account, String session, UUID runId, String holder, long ttlMicros)
      throws SQLException {
    ps.setString(1, account);
    ps.setString(2, session);
    ps.setObject(3, runId);
    ps.setString(4, holder);
    ps.setLong(5, ttlMicros);
  }

  /** Binds the acquire statement's parameters, as the store does. */
  static void bindAcquire(
      PreparedStatement ps, String account, String session, UUID runId, String holder, long ttlMicros,
      long takeoverDelayMicros)
      throws SQLException {
    try {
      Method m =
          Class.forName(LEASE_SQL)
              .getDeclaredMethod(
                  "bindAcquire", PreparedStatement.class, LeaseKey.class, UUID.class, String.class, long.class, long.class);
      m.setAccessible(true);
      m.invoke(null, ps, LeaseKey.of(account, session), runId, holder, ttlMicros, takeoverDelayMicros);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof SQLException s) {
        throw s;
      }
      throw new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("could not bind the acquire statement", e);
    }
  }
}
