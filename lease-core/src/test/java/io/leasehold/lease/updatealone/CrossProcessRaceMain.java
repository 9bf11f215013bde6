package io.leasehold.lease.updatealone;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.RaceParts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Child process of {@code UpdateAloneRaceTest}: epochs of fresh stores, each granted every key
 * once, racing on the keys with the parent. Arguments: JDBC URL, user, password, account, session
 * prefix, keys, epochs. Waits for "GO", then prints {@code RESULT <grants> <problems> <first
 * problem>} and {@code GRANTS run:fence,...}.
 */
public final class CrossProcessRaceMain {
  private CrossProcessRaceMain() {}

  /** Runs {@code epochs} epochs of fresh stores on {@code pools} (the first shared by two). */
  static void epochs(
      List<HikariDataSource> pools,
      String name,
      List<LeaseKey> keys,
      int epochs,
      List<RaceRounds.Grant> grants,
      List<String> problems)
      throws InterruptedException {
    Map<LeaseKey, AtomicLong> floor = new ConcurrentHashMap<>();
    keys.forEach(k -> floor.put(k, new AtomicLong()));
    for (int e = 0; e < epochs; e++) {
      List<LeaseStore> stores = new ArrayList<>();
      stores.add(RaceParts.store(pools.get(0), name + "-shared-a", false));
      stores.add(RaceParts.store(pools.get(0), name + "-shared-b", false));
      for (int p = 1; p < pools.size(); p++) {
        stores.add(RaceParts.store(pools.get(p), name + "-own-" + p, true));
      }
      try {
        for (LeaseStore s : stores) {
          for (LeaseKey k : keys) {
            Lease l =
                s.acquire(AcquireRequest.of(k, k.accountId()), Duration.ofSeconds(10))
                    .acquiredLease()
                    .orElseThrow();
            grants.add(new RaceRounds.Grant(k, l.runId(), l.fence(), l.holder()));
            l.release();
          }
        }
        RaceRounds.race(
            stores, keys, floor, grants, problems, new AtomicInteger(), new ConcurrentHashMap<>());
      } finally {
        stores.forEach(LeaseStore::close);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    List<HikariDataSource> pools =
        List.of(
            RaceParts.pool(args[0], args[1], args[2], 8),
            RaceParts.pool(args[0], args[1], args[2], 3),
            RaceParts.pool(args[0], args[1], args[2], 3));
    try {
      List<LeaseKey> keys = RaceParts.keys(args[3], args[4], Integer.parseInt(args[5]));
      System.out.println("READY");
      System.out.flush();
      String go = new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
      if (!"GO".equals(go)) {
        System.exit(3);
      }
      List<RaceRounds.Grant> grants = new CopyOnWriteArrayList<>();
      List<String> problems = new CopyOnWriteArrayList<>();
      epochs(pools, "child", keys, Integer.parseInt(args[6]), grants, problems);
      System.out.println(
          "GRANTS "
              + grants.stream()
                  .map(g -> g.run() + ":" + g.fence())
                  .collect(Collectors.joining(",")));
      System.out.println(
          "RESULT "
              + grants.size()
              + " "
              + problems.size()
              + " "
              + (problems.isEmpty() ? "-" : problems.get(0).replace('\n', ' ')));
      System.out.flush();
    } finally {
      pools.forEach(HikariDataSource::close);
    }
  }
}
