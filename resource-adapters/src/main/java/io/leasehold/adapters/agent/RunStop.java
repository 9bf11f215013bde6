package io.leasehold.adapters.agent;

import io.leasehold.fencing.internal.Arguments;
import io.leasehold.fencing.FencingToken;
import java.util.OptionalLong;

/**
 * Why a run's tool call was refused: the run must stop. {@link #messageForModel()} is the text an
 * agent framework hands the model in place of the tool's result; the other components are for the
 * application.
 *
 * @param token the refused run's token
 * @param tool the tool whose call was refused
 * @param reason why
 * @param newerFence the fence of the newer run that took over, when {@link Reason#SUPERSEDED}
 * @param detail what the application's log should say (may name keys or reasons that the model
 *     need not see)
 */
public record RunStop(FencingToken token, String tool, Reason reason, OptionalLong newerFence, String detail) {
  /** Why a run must stop. */
  public enum Reason {
    /** A newer run of the session has been admitted: this run's fence is stale (C9). */
    SUPERSEDED,
    /** The run's lease is known lost locally (C6); another run may be in charge. */
    LEASE_LOST,
    /** The run's token failed verification (C15): it may be forged or signed with a retired key. */
    UNVERIFIED
  }

  /**
   * Checks required components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public RunStop {
    Arguments.allRequired(token, tool, reason, newerFence, detail);
  }

  /**
   * What the model reads in place of the tool's result: that the tool did not run, why, and that
   * it must stop rather than retry.
   *
   * @return plain text
   */
  public String messageForModel() {
    String notRun = " The tool \"" + tool + "\" was NOT run.";
    String stop = " Stop now: do not retry, do not call any other tool, and end your turn.";
    return switch (reason) {
      case SUPERSEDED ->
          "Tool call refused by Leasehold: a newer run of this session"
              + newerFence.stream().mapToObj(f -> " (fence " + f + ")").findFirst().orElse("")
              + " has taken over, so this run (fence " + token.fence() + ") is superseded."
              + notRun + stop;
      case LEASE_LOST ->
          "Tool call refused by Leasehold: this run (fence " + token.fence()
              + ") has lost its lease on the session, so another run may be in charge."
              + notRun + stop;
      case UNVERIFIED ->
          "Tool call refused by Leasehold: this run's token could not be verified." + notRun + stop;
    };
  }
}
