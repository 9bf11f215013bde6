package io.leasehold.lease.readfirst;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.RaceParts;
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

  public static void main(String[] args) throws Exception {
    try (HikariDataSource shared = RaceParts.pool(args[0], args[1], args[2], 6);
        HikariDataSource own = RaceParts.pool(args[0], args[1], args[2], 3)) {
      List<LeaseKey> keys = RaceParts.keys(args[3], args[4], Integer.parseInt(args[5]));
      List<LeaseStore> stores =
          List.of(
              RaceParts.store(shared, "child-shared-a", false),
              RaceParts.store(shared, "child-shared-b", false),
              RaceParts.store(own, "child-own", true));
      try (LeaseStore blocker = RaceParts.store(shared, "child-blocker", false)) {
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
