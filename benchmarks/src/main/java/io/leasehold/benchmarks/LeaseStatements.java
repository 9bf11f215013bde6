package io.leasehold.benchmarks;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.LeaseSchema;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * The exact statements the lease store sends, for the benchmarks that issue them from a bare JDBC
 * loop (the floor of the library's own overhead). They are package-private in leasehold-core, which
 * is right for users; the benchmarks, run on the class path, read them by reflection rather than
 * put a class into the store's package.
 */
record LeaseStatements(
    String acquire,
    String acquireNew,
    String release,
    String releaseHolding,
    String status,
    String renew,
    String publish,
    String sessionTimeouts,
    String acquireOnCitus,
    String releaseOnCitus,
    String grantIfFree,
    String readFirst) {
  private static final String PACKAGE = "io.leasehold.lease.";

  /** The statements of a store on a shared pool that does not publish. */
  static LeaseStatements of(Duration lockTimeout, Duration statementTimeout) {
    return of(lockTimeout, statementTimeout, false, false);
  }

  /**
   * @param notify true for a publishing store's statements ({@code publish} is null otherwise)
   * @param dedicated true for the statements of a store on a dedicated pool: no opening, the
   *     timeouts set once per connection by {@code sessionTimeouts} (null otherwise)
   */
  static LeaseStatements of(
      Duration lockTimeout, Duration statementTimeout, boolean notify, boolean dedicated) {
    try {
      // Each statement family of the store holds its texts; built without a runner, they only
      // hold texts (see io.leasehold.lease.StoreParts for how the store wires them).
      Class<?> settingsType = type("StatementSettings");
      Object settings =
          construct(
              settingsType,
              new Class<?>[] {LeaseSchema.class, Duration.class, Duration.class, boolean.class},
              LeaseSchema.defaults(),
              lockTimeout,
              statementTimeout,
              dedicated);
      Class<?> runner = type("StatementRunner");
      Class<?> readsType = type("ReadStatements");
      Object reads =
          construct(
              readsType,
              new Class<?>[] {runner, settingsType, Duration.class},
              null,
              settings,
              Duration.ZERO);
      Object acquires =
          construct(
              type("AcquireStatements"),
              new Class<?>[] {runner, settingsType, readsType, boolean.class, Duration.class},
              null,
              settings,
              reads,
              notify,
              Duration.ZERO);
      Object releases =
          construct(
              type("ReleaseStatements"),
              new Class<?>[] {runner, settingsType, readsType},
              null,
              settings,
              reads);
      Object renew =
          construct(type("RenewStatement"), new Class<?>[] {runner, settingsType}, null, settings);
      String publish =
          notify
              ? (String) invoke(type("ChangePublisher"), "statement", settingsType, settings)
              : null;
      String sessionTimeouts = (String) invoke(settingsType, "sessionTimeouts", null, settings);
      return new LeaseStatements(
          field(acquires, "acquire"),
          field(acquires, "acquireNew"),
          field(releases, "release"),
          field(releases, "releaseHolding"),
          field(reads, "status"),
          field(renew, "renew"),
          publish,
          sessionTimeouts,
          field(acquires, "acquireOnCitus"),
          field(releases, "releaseOnCitus"),
          field(acquires, "grantIfFree"),
          field(reads, "row"));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "could not read the store's statements from " + PACKAGE + "*Statement(s)", e);
    }
  }

  private static Class<?> type(String name) throws ClassNotFoundException {
    return Class.forName(PACKAGE + name);
  }

  private static Object construct(Class<?> type, Class<?>[] parameters, Object... args)
      throws ReflectiveOperationException {
    Constructor<?> c = type.getDeclaredConstructor(parameters);
    c.setAccessible(true);
    return c.newInstance(args);
  }

  /**
   * A static method of one parameter ({@code parameter} non-null), or an instance method of none.
   */
  private static Object invoke(Class<?> type, String name, Class<?> parameter, Object arg)
      throws ReflectiveOperationException {
    Method m =
        parameter == null ? type.getDeclaredMethod(name) : type.getDeclaredMethod(name, parameter);
    m.setAccessible(true);
    return parameter == null ? m.invoke(arg) : m.invoke(null, arg);
  }

  private static String field(Object owner, String name) throws ReflectiveOperationException {
    Field f = owner.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return (String) f.get(owner);
  }

  /** Binds the first-acquire statement's parameters, as the store does. */
  static void bindAcquireNew(
      PreparedStatement ps,
      String account,
      String session,
      UUID runId,
      String holder,
      long ttlMicros)
      throws SQLException {
    bindAsTheStore(
        "bindAcquireNew",
        new Class<?>[] {
          PreparedStatement.class, LeaseKey.class, UUID.class, String.class, long.class
        },
        ps,
        LeaseKey.of(account, session),
        runId,
        holder,
        ttlMicros);
  }

  /** Binds the acquire statement's parameters, as the store does. */
  static void bindAcquire(
      PreparedStatement ps,
      String account,
      String session,
      UUID runId,
      String holder,
      long ttlMicros,
      long takeoverDelayMicros)
      throws SQLException {
    bindAsTheStore(
        "bindAcquire",
        new Class<?>[] {
          PreparedStatement.class, LeaseKey.class, UUID.class, String.class, long.class, long.class
        },
        ps,
        LeaseKey.of(account, session),
        runId,
        holder,
        ttlMicros,
        takeoverDelayMicros);
  }

  /** Calls the store's own binding method of AcquireStatements, so the two cannot drift apart. */
  private static void bindAsTheStore(String method, Class<?>[] parameters, Object... args)
      throws SQLException {
    try {
      Method m = type("AcquireStatements").getDeclaredMethod(method, parameters);
      m.setAccessible(true);
      m.invoke(null, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof SQLException s) {
        throw s;
      }
      throw new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("could not bind with " + method, e);
    }
  }
}
