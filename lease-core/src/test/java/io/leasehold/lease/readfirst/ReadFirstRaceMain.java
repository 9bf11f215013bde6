package io.leasehold.lease.readfirst;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * Child process of {@code ReadFirstRaceTest}: stores that found every key taken race the parent's.
 * Arguments: JDBC URL, user, password, account, session prefix, keys, rounds. Waits for "GO", then
 * prints {@code GRANTS run:fence,...}, {@code REFUSALS run:fence,...} and {@code RESULT <grants>
 * <problems> <first problem>}.
 */
public final class ReadFirstRaceMain {
  private ReadFirstRaceMain() {}

  static List<LeaseKey> keys(String account, String prefix, int n) {
    List<LeaseKey> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(LeaseKey.of(account, prefix + "-" + i));
    }
    return keys;
  }

  static LeaseStore store(javax.sql.DataSource ds, String holder, boolean dedicated) {
    return LeaseStore.builder(ds)
        .accessPolicy(AccessPolicy.allowAll())
        .ttl(Duration.ofSeconds(2))
        .defaultHolder(holder)
        .dedicatedPool(dedicated)
        .build();
  }

  static HikariDataSource pool(String url, String user, String password, int size) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(size);
    return new HikariDataSource(c);
  }

  public static void main(String[] args) throws Exception {
    try (HikariDataSource shared = pool(args[0], args[1], args[2], 6);
        HikariDataSource own = pool(args[0], args[1], args[2], 3)) {
      List<LeaseKey> keys = keys(args[3], args[4], Integer.parseInt(args[5]));
      List<LeaseStore> stores =
          List.of(
              store(shared, "child-shared-a", false),
              store(shared, "child-shared-b", false),
              store(own, "child-own", true));
      try (LeaseStore blocker = store(shared, "child-blocker", false)) {
        ReadFirstRounds.primeTaken(blocker, stores, keys);
      }
      System.out.println("READY");
      System.out.flush();
      String go = new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
      if (!"GO".equals(go)) {
        System.exit(3);
      }
      List<ReadFirstRounds.Grant> grants = new CopyOnWriteArrayList<>();
      List<ReadFirstRounds.Refusal> refusals = new CopyOnWriteArrayList<>();
      List<String> problems = new CopyOnWriteArrayList<>();
      ReadFirstRounds.race(stores, keys, 4, Integer.parseInt(args[6]), grants, refusals, problems);
      stores.forEach(LeaseStore::close);
      System.out.println(
          "GRANTS "
              + grants.stream()
                  .map(g -> g.run() + ":" + g.fence())
                  .collect(Collectors.joining(",")));
      System.out.println(
          "REFUSALS "
              + refusals.stream()
                  .filter(r -> r.status().owner().isPresent())
                  .map(
                      r ->
                          r.status().owner().get().runId() + ":" + r.status().owner().get().fence())
                  .collect(Collectors.joining(",")));
      System.out.println(
          "RESULT "
              + grants.size()
              + " "
              + problems.size()
              + " "
              + (problems.isEmpty() ? "-" : problems.get(0).replace('\n', ' ')));
      System.out.flush();
    }
  }
}
