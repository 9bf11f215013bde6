package io.leasehold.lease;

import java.util.List;

/**
 * Whether the store's database keeps leases and fences across a failover (see
 * docs/high-availability.md), as {@link LeaseAdmin#failoverSafety()} reads it from the server it is
 * connected to. A lease or fence the database acknowledged must survive the loss of the primary, or
 * a promoted standby can grant a session to a second run, or issue a fence twice.
 *
 * @param fsync the server's {@code fsync}; off loses acknowledged commits in a crash
 * @param synchronousCommit the session's {@code synchronous_commit}
 * @param synchronousStandbyNames the server's {@code synchronous_standby_names}
 * @param standbys standbys streaming from this server, as {@code pg_stat_replication} shows them
 * @param synchronousStandbys how many of them are synchronous ({@code sync} or {@code quorum}), or
 *     -1 if this user may not see ({@code pg_monitor} or {@code pg_read_all_stats} can)
 * @param inRecovery whether this server is a standby (a store should only ever reach the primary)
 * @param warnings what is unsafe and how to repair it; empty when safe
 */
public record FailoverSafety(
    boolean fsync,
    String synchronousCommit,
    String synchronousStandbyNames,
    int standbys,
    int synchronousStandbys,
    boolean inRecovery,
    List<String> warnings) {

  /**
   * Copies the warnings.
   *
   * @throws IllegalArgumentException if a text or the warnings are null
   */
  public FailoverSafety {
    if (synchronousCommit == null || synchronousStandbyNames == null || warnings == null) {
      throw new IllegalArgumentException("settings and warnings must not be null");
    }
    warnings = List.copyOf(warnings);
  }

  /**
   * Whether nothing was found unsafe.
   *
   * @return true when there are no warnings
   */
  public boolean isSafe() {
    return warnings.isEmpty();
  }

  /** Judges the settings a server reported. */
  static FailoverSafety judge(
      boolean fsync,
      String synchronousCommit,
      String standbyNames,
      int standbys,
      int syncStandbys,
      boolean inRecovery) {
    List<String> w = new java.util.ArrayList<>();
    if (!fsync) {
      w.add(
          "fsync is off: a crash can lose or corrupt acknowledged leases and fences; set fsync = on");
    }
    if (inRecovery) {
      w.add(
          "connected to a standby, which cannot grant leases: point the store at the primary"
              + " (pgjdbc targetServerType=primary)");
    }
    boolean waitsForStandby =
        !standbyNames.isBlank()
            && (synchronousCommit.equals("on") || synchronousCommit.equals("remote_apply"));
    if (standbys > 0 && standbyNames.isBlank()) {
      w.add(
          standbys
              + " standby(s), all asynchronous: a failover to one can lose acknowledged leases and fence"
              + " advances; configure synchronous replication (Patroni synchronous_mode and synchronous_mode_strict)");
    } else if (standbys > 0 && !waitsForStandby) {
      w.add(
          "synchronous_commit is "
              + synchronousCommit
              + ": commits do not wait for the synchronous standby to"
              + " flush them; use on (or remote_apply)");
    } else if (standbys > 0 && syncStandbys < 0) {
      w.add(
          "this user cannot see which standbys are synchronous: grant it pg_monitor, or check"
              + " pg_stat_replication.sync_state as a superuser");
    } else if (standbys > 0 && syncStandbys == 0) {
      w.add(
          "synchronous_standby_names is set, but no standby is synchronous now: commits wait, or, without"
              + " synchronous_mode_strict, a failover may promote a standby that missed them");
    }
    return new FailoverSafety(
        fsync, synchronousCommit, standbyNames, standbys, syncStandbys, inRecovery, w);
  }
}
