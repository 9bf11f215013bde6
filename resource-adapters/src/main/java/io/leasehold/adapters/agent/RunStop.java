package io.leasehold.adapters.agent;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.Refusal;
import io.leasehold.fencing.internal.Arguments;
import java.util.OptionalLong;

/**
 * Why a run's tool call was refused: the run must stop. {@link #messageForModel()} is the text an
 * agent framework hands the model in place of the tool's result; the other components are for the
 * application. The refusal is in the vocabulary the guards' listeners, the MCP wire and the Node
 * package share ({@link Refusal}, docs/refusal-spec.md).
 *
 * @param token the refused run's token
 * @param tool the tool whose call was refused
 * @param refusal why, with the key's highest fence for a superseded run
 */
public record RunStop(FencingToken token, String tool, Refusal refusal) {
  /**
   * Checks required components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public RunStop {
    Arguments.allRequired(token, tool, refusal);
  }

  /**
   * Why the run must stop.
   *
   * @return {@code refusal().reason()}
   */
  public Refusal.Reason reason() {
    return refusal.reason();
  }

  /**
   * The fence of the newer run that took over, when {@link Refusal.Reason#SUPERSEDED}.
   *
   * @return {@code refusal().highestSeen()}
   */
  public OptionalLong newerFence() {
    return refusal.highestSeen();
  }

  /**
   * What the application's log should say (it may name keys that the model need not see).
   *
   * @return {@code refusal().message()}
   */
  public String detail() {
    return refusal.message();
  }

  /**
   * What the model reads in place of the tool's result: that the tool did not run, why, and what to
   * do; for every reason but a retryable one, that it must stop rather than retry.
   *
   * @return plain text
   */
  public String messageForModel() {
    String notRun = " The tool \"" + tool + "\" was NOT run.";
    String stop = " Stop now: do not retry, do not call any other tool, and end your turn.";
    String why =
        switch (refusal.reason()) {
          case SUPERSEDED ->
              "a newer run of this session"
                  + newerFence().stream().mapToObj(f -> " (fence " + f + ")").findFirst().orElse("")
                  + " has taken over, so this run (fence "
                  + token.fence()
                  + ") is superseded.";
          case LEASE_LOST ->
              "this run (fence "
                  + token.fence()
                  + ") has lost its lease on the session, so another run may be in charge.";
          case EXPIRED ->
              "this run's token (fence "
                  + token.fence()
                  + ") has expired: its lease ended or stopped renewing, so another run may be in charge.";
          case MISSING, MALFORMED, FORGED -> "this run's token could not be verified.";
          case OUT_OF_SCOPE -> "this run's token is not valid for what the call touches.";
          case DUPLICATE -> "the same call of this run is still running.";
          case UNAVAILABLE -> "the fence could not check the call.";
        };
    String next =
        switch (refusal.action()) {
          case STOP_RUN, SKIP_CALL -> stop;
          case RETRY_LATER -> " Try again later.";
        };
    return "Tool call refused by Leasehold: " + why + notRun + next;
  }
}
