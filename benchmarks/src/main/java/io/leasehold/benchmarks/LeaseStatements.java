package io.leasehold.benchmarks;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.LeaseSchema;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
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
record LeaseStatements(
    String acquire,
    String acquireNew,
    String release,
    String releaseHolding,
    String status,
    String renew,
    String publish,
    String sessionTimeouts) {
  private static final String LEASE_SQL = "io.leasehold.lease.LeaseSql";

  /** The statements of a store on a shared pool that does not publish. */
  static LeaseStatements of(Duration lockTimeout, Duration statementTimeout) {
    return of(lockTimeout, statementTimeout, false, false);
  }

  /**
   * @param notify true for a publishing store's statements ({@code publish} is null otherwise)
   * @param dedicated true for the statements of a store on a dedicated pool: no opening, the
   *     timeouts set once per connection by {@code sessionTimeouts} (null otherwise)
   */
  static LeaseStatements of(Duration lockTimeout, Duration statementTimeout, boolean notify, boolean dedicated) {
    try {
      Class<?> type = Class.forName(LEASE_SQL);
      Constructor<?> c =
          type.getDeclaredConstructor(LeaseSchema.class, Duration.class, Duration.class, boolean.class, boolean.class);
      c.setAccessible(true);
      Object sql = c.newInstance(LeaseSchema.defaults(), lockTimeout, statementTimeout, notify, dedicated);
      RecordComponent[] components = LeaseStatements.class.getRecordComponents();
      Object[] values = new Object[components.length];
      for (int i = 0; i < components.length; i++) {
        Field f = type.getDeclaredField(components[i].getName());
        f.setAccessible(true);
        values[i] = f.get(sql);
      }
      return (LeaseStatements) LeaseStatements.class.getDeclaredConstructors()[0].newInstance(values);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("could not read the store's statements from " + LEASE_SQL, e);
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
