package io.leasehold.lease.readfirst;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.lease.LeaseStoreListener;
import io.leasehold.lease.support.FakeTicker;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.SingleServerOnly;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Red team 51: the read first under table locks, rows with infinite times, a grant after the read
 * that arrives too late, a read that fails, the asynchronous wait, and the status.
 */
@SingleServerOnly(
    "a Citus coordinator always gets the full acquire; the read first is one PostgreSQL's")
class ReadFirstEdgesTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private final List<String> sent = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  private LeaseStore store(String holder, DataSource source) {
    return store(LeaseStore.builder(source).defaultHolder(holder));
  }

  private LeaseStore store(io.leasehold.lease.LeaseStoreBuilder b) {
    LeaseStore s =
        b.accessPolicy(AccessPolicy.allowAll().withAdministrators(Set.of("ops")))
            .ttl(Duration.ofSeconds(5))
            .build();
    closeables.add(0, s);
    return s;
  }

  private static AcquireResult ask(LeaseStore s, LeaseKey key) {
    return s.tryAcquire(AcquireRequest.of(key, key.accountId()));
  }

  private static String outcome(LeaseStore s, LeaseKey key) {
    try {
      AcquireResult r = ask(s, key);
      if (r instanceof AcquireResult.Acquired a) {
        a.lease().release();
        return "Acquired";
      }
      if (r instanceof AcquireResult.Busy b) {
        return "Busy " + b.status().state() + " " + b.status().owner().map(o -> o.fence());
      }
      return r.toString();
    } catch (RuntimeException e) {
      System.out.println("read first: " + key + ": " + e);
      return e.getClass().getSimpleName();
    }
  }

  /** A store that found the key taken: its next ask is the read first. */
  private LeaseStore reader(LeaseKey key, DataSource source) {
    LeaseStore holder = store("holder", db.dataSource());
    Lease held = ReadFirstCasesTest.granted(ask(holder, key), "holder");
    LeaseStore r = store("reader", source);
    ReadFirstCasesTest.busy(ask(r, key), "priming");
    held.release();
    return r;
  }

  /**
   * An operator's table lock (a migration, VACUUM FULL) while the key is held: the read and the
   * full acquire give the same answer.
   */
  @Test
  void aTableLockGivesTheSameAnswerToTheReadAndTheFullAcquire() throws Exception {
    List<String> differences = new ArrayList<>();
    for (String mode : List.of("SHARE", "EXCLUSIVE", "ACCESS EXCLUSIVE")) {
      LeaseKey key = LeaseKey.of("acct", "rf-table-" + mode.replace(' ', '-'));
      LeaseStore reader = reader(key, TestDataSources.recording(db.dataSource(), sent));
      Lease held = ReadFirstCasesTest.granted(ask(store("h2", db.dataSource()), key), "h2");
      LeaseStore full = store("full", db.dataSource());
      // make the full store's first statement (the sequence check) already done
      ask(full, LeaseKey.of("acct", "rf-table-warm-" + mode.replace(' ', '-')));
      String viaRead;
      String viaFull;
      try (Connection c = db.database().newConnection()) {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
          st.execute("LOCK TABLE leasehold_lease IN " + mode + " MODE");
        }
        viaRead = outcome(reader, key);
        viaFull = outcome(full, key);
        c.rollback();
      }
      System.out.println(
          "read first: table lock " + mode + ": read " + viaRead + " / full " + viaFull);
      if (!viaRead.equals(viaFull)) {
        differences.add(mode + ": read " + viaRead + " but full " + viaFull);
      }
      held.release();
    }
    assertThat(differences).isEmpty();
  }

  /** Rows with infinite times written behind the store's back: the same answer both ways. */
  @Test
  void infiniteTimesGiveTheSameAnswerToTheReadAndTheFullAcquire() throws Exception {
    List<String> differences = new ArrayList<>();
    String[][] rows = {
      {"'infinity'", "NULL"},
      {"'-infinity'", "NULL"},
      {"'infinity'", "statement_timestamp() - interval '1 second'"},
      {"statement_timestamp() + interval '1 minute'", "'-infinity'"},
      {"statement_timestamp() - interval '1 minute'", "'infinity'"},
    };
    int i = 0;
    for (String[] r : rows) {
      LeaseKey key = LeaseKey.of("acct", "rf-inf-" + i++);
      LeaseStore reader = reader(key, db.dataSource());
      String set =
          "UPDATE leasehold_lease SET expires_at = "
              + r[0]
              + ", released_at = "
              + r[1]
              + " WHERE account_id = ? AND session_id = ?";
      Sql.update(db.dataSource(), set, key.accountId(), key.sessionId());
      String viaRead = outcome(reader, key);
      Sql.update(db.dataSource(), set, key.accountId(), key.sessionId());
      String viaFull = outcome(store("full", db.dataSource()), key);
      System.out.println(
          "read first: expires "
              + r[0]
              + " released "
              + r[1]
              + ": read "
              + viaRead
              + " / full "
              + viaFull);
      if (!viaRead.equals(viaFull)) {
        differences.add(r[0] + "/" + r[1] + ": read " + viaRead + " but full " + viaFull);
      }
    }
    assertThat(differences).isEmpty();
  }

  /** The grant after a read that arrives after the local deadline: TooLate, and released. */
  @Test
  void aGrantAfterTheReadThatArrivesTooLateIsReleased() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-toolate");
    FakeTicker ticker = new FakeTicker();
    AtomicBoolean slow = new AtomicBoolean();
    DataSource source = slowGrants(db.dataSource(), ticker, slow);
    LeaseStore holder = store("holder", db.dataSource());
    Lease held = ReadFirstCasesTest.granted(ask(holder, key), "holder");
    LeaseStore reader = store(LeaseStore.builder(source).defaultHolder("reader").ticker(ticker));
    ReadFirstCasesTest.busy(ask(reader, key), "priming");
    held.release();
    slow.set(true);
    AcquireResult r = ask(reader, key);
    assertThat(r).isInstanceOf(AcquireResult.TooLate.class);
    AcquireResult.TooLate late = (AcquireResult.TooLate) r;
    assertThat(late.token().fence()).isGreaterThan(held.fence());
    assertThat(late.release()).hasValueSatisfying(rr -> assertThat(rr.released()).isTrue());
    slow.set(false);
    LeaseStatus st = store("observer", db.dataSource()).status(key, "acct");
    assertThat(st.state()).isEqualTo(LeaseStatus.State.FREE);
    Lease mine = ReadFirstCasesTest.granted(ask(reader, key), "after TooLate");
    assertThat(mine.fence()).isGreaterThan(late.token().fence());
  }

  /** Connections whose acquire writes move the ticker 10 s after their answer, while slow. */
  private static DataSource slowGrants(DataSource ds, FakeTicker ticker, AtomicBoolean slow) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, a) -> {
              Object res = forward(m, ds, a);
              if (!(res instanceof Connection c)) {
                return res;
              }
              return Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (cp, cm, ca) -> {
                    Object cres = forward(cm, c, ca);
                    if (cres instanceof PreparedStatement ps
                        && ca != null
                        && ca[0] instanceof String sql
                        && sql.contains("SET run_id")) {
                      return Proxy.newProxyInstance(
                          PreparedStatement.class.getClassLoader(),
                          new Class<?>[] {PreparedStatement.class},
                          (sp, sm, sa) -> {
                            Object sres = forward(sm, ps, sa);
                            if (sm.getName().startsWith("execute") && slow.get()) {
                              ticker.advance(Duration.ofSeconds(10));
                            }
                            return sres;
                          });
                    }
                    return cres;
                  });
            });
  }

  private static Object forward(java.lang.reflect.Method m, Object target, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** A read that fails is an error (outcome known: nothing granted), reported once as ERROR. */
  @Test
  void aReadThatFailsIsAnErrorAndGrantsNothing() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-read-fails");
    AtomicBoolean failing = new AtomicBoolean();
    DataSource source =
        TestDataSources.failingStatements(
            db.dataSource(), "SELECT statement_timestamp(), l.run_id", failing::get);
    LeaseStore holder = store("holder", db.dataSource());
    Lease held = ReadFirstCasesTest.granted(ask(holder, key), "holder");
    LeaseStore reader = store("reader", source);
    ReadFirstCasesTest.busy(ask(reader, key), "priming");
    List<String> events = new CopyOnWriteArrayList<>();
    reader.addListener(
        new LeaseStoreListener() {
          @Override
          public void started(Operation operation) {
            events.add("start " + operation);
          }

          @Override
          public void acquireEnded(AcquireOutcome outcome, Duration latency) {
            events.add("end " + outcome);
          }
        });
    held.release();
    failing.set(true);
    org.junit.jupiter.api.Assertions.assertThrows(
        LeaseStoreException.class, () -> ask(reader, key));
    assertThat(events).containsExactly("start ACQUIRE", "end ERROR");
    assertThat(
            Sql.query(
                    db.dataSource(),
                    "SELECT run_id FROM leasehold_lease WHERE account_id = ? AND session_id = ?",
                    key.accountId(),
                    key.sessionId())
                .get(0)
                .get(0))
        .isEqualTo(held.runId());
    failing.set(false);
    Lease mine = ReadFirstCasesTest.granted(ask(reader, key), "after the failure");
    assertThat(mine.fence()).isGreaterThan(held.fence());
  }

  @Test
  void anAsynchronousWaitOnAKeyFoundTakenGetsItAfterTheHold() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-async");
    LeaseStore holder = store("holder", db.dataSource());
    Lease held = ReadFirstCasesTest.granted(ask(holder, key), "holder");
    LeaseStore reader = store("reader", db.dataSource());
    ReadFirstCasesTest.busy(ask(reader, key), "priming");
    Instant until =
        ((java.sql.Timestamp)
                Sql.query(db.dataSource(), "SELECT statement_timestamp()").get(0).get(0))
            .toInstant()
            .plusMillis(300);
    held.releaseHolding(until);
    ExecutorService ex = Executors.newFixedThreadPool(2);
    try {
      CompletableFuture<AcquireResult> f =
          reader.acquireAsync(AcquireRequest.of(key, "acct"), Duration.ofSeconds(5), ex);
      Lease mine = ReadFirstCasesTest.granted(f.get(5, TimeUnit.SECONDS), "after the hold (async)");
      assertThat(mine.acquiredAt()).isAfterOrEqualTo(until);
      assertThat(mine.fence()).isGreaterThan(held.fence());
    } finally {
      ex.shutdownNow();
    }
  }

  @Test
  void busyOnTheReadIsWhatStatusSays() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-status");
    LeaseStore holder = store("holder", db.dataSource());
    Lease held = ReadFirstCasesTest.granted(ask(holder, key), "holder");
    LeaseStore reader = store("reader", db.dataSource());
    ReadFirstCasesTest.busy(ask(reader, key), "priming");
    held.renew(Duration.ofSeconds(20));
    LeaseStatus busy = ReadFirstCasesTest.busy(ask(reader, key), "read").status();
    LeaseStatus status = reader.status(key, "acct");
    assertThat(busy.state()).isEqualTo(status.state()).isEqualTo(LeaseStatus.State.HELD);
    assertThat(busy.owner()).isEqualTo(status.owner());
    assertThat(busy.owner().orElseThrow().expiresAt()).isEqualTo(held.expiresAt());
    assertThat(busy.acquirableAt()).isEqualTo(status.acquirableAt());
    assertThat(busy.remaining()).isPositive();
  }

  /**
   * A caller allowed to acquire but not to read the status gets from the read the same Busy as from
   * the full acquire: the read reveals nothing the full acquire does not.
   */
  @Test
  void aCallerWithoutReadStatusSeesTheSameBusyEitherWay() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-no-status");
    AccessPolicy noStatus =
        new io.leasehold.lease.support.OperationPolicy(
            op -> op != AccessPolicy.Operation.READ_STATUS);
    LeaseStore holder = store("holder", db.dataSource());
    Lease held = ReadFirstCasesTest.granted(ask(holder, key), "holder");
    java.util.function.Supplier<LeaseStore> limited =
        () -> {
          LeaseStore s =
              LeaseStore.builder(db.dataSource())
                  .accessPolicy(noStatus)
                  .ttl(Duration.ofSeconds(5))
                  .build();
          closeables.add(0, s);
          return s;
        };
    LeaseStore reader = limited.get();
    LeaseStatus first = ReadFirstCasesTest.busy(ask(reader, key), "full acquire").status();
    LeaseStatus viaRead = ReadFirstCasesTest.busy(ask(reader, key), "read").status();
    LeaseStatus viaFull = ReadFirstCasesTest.busy(ask(limited.get(), key), "full").status();
    System.out.println("read first: no READ_STATUS: read " + viaRead + " / full " + viaFull);
    assertThat(viaRead.owner()).isEqualTo(viaFull.owner()).isEqualTo(first.owner());
    assertThat(viaRead.state()).isEqualTo(viaFull.state());
    org.junit.jupiter.api.Assertions.assertThrows(
        io.leasehold.lease.AccessDeniedException.class, () -> reader.status(key, "acct"));
    held.release();
  }
}
