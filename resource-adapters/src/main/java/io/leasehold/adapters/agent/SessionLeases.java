package io.leasehold.adapters.agent;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.internal.Arguments;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live run of each session in this process, for frameworks that hand a tool call only the
 * conversation's identity. A run registers its lease when it starts and closes the registration
 * when it ends.
 *
 * <p>At most one live run per session per process: finding a run by session alone cannot tell two
 * runs of the same session apart, and handing an older run's call the newer run's lease would admit
 * the stale writer under the new fence. So {@link #register} refuses a second run while the first
 * is registered and not known lost. Applications that may start a new run of a session in the same
 * process while an old one is still going pass the run's lease with each framework invocation
 * instead (docs/agents.md).
 *
 * <p>Thread-safe. An instance belongs to the application; there is no shared default.
 */
public final class SessionLeases {
  private final ConcurrentHashMap<LeaseKey, Registration> live = new ConcurrentHashMap<>();

  /** Creates an empty registry. */
  public SessionLeases() {}

  /**
   * Registers a run as its session's live run in this process.
   *
   * @param run the run's lease
   * @return the registration; close it when the run ends
   * @throws IllegalArgumentException if the run is null
   * @throws LeaseLostException if the run's lease is already known lost
   * @throws IllegalStateException if another run of the session is registered and not known lost
   */
  public Registration register(Fenced run) {
    FencingToken token = Fenced.present(run);
    Registration mine = new Registration(token, run);
    Registration winner =
        live.compute(
            token.key(), (k, existing) -> existing == null || existing.isLost() ? mine : existing);
    if (winner != mine) {
      throw new IllegalStateException(
          "session "
              + token.key()
              + " already has a live run registered in this process ("
              + winner.describe()
              + "); close its registration when it ends, or pass each run's"
              + " lease with its framework invocation instead of finding it by session");
    }
    return mine;
  }

  /**
   * The live run of a session, if one is registered.
   *
   * @param key the session
   * @return its run
   */
  public Optional<Fenced> find(LeaseKey key) {
    Arguments.required(key, "key");
    Registration r = live.get(key);
    return r == null ? Optional.empty() : Optional.of(r.run);
  }

  /** One run's registration; closing it removes the run if it is still the registered one. */
  public final class Registration implements AutoCloseable {
    private final LeaseKey key;
    private final Fenced run;

    /** The run's registration under the key of the token it presented. */
    private Registration(FencingToken presented, Fenced run) {
      this.key = presented.key();
      this.run = run;
    }

    private boolean isLost() {
      try {
        run.token();
        return false;
      } catch (LeaseLostException e) {
        return true;
      }
    }

    private String describe() {
      try {
        FencingToken t = run.token();
        return "run " + t.runId() + ", fence " + t.fence();
      } catch (LeaseLostException e) {
        return "a lost run";
      }
    }

    /** Removes the registration, if it is still the session's. Idempotent. */
    @Override
    public void close() {
      live.remove(key, this);
    }
  }
}
