package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.fencing.AdminDeniedException;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FenceGuard;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.GuardBuilder;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.GuardOptions;
import io.leasehold.fencing.GuardPipeline;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.fencing.internal.Arguments;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Runs side-effecting agent tools only for the newest run of each session, and journals every call
 * so that a later run can tell which calls of an earlier run are in doubt.
 *
 * <pre>{@code
 * FencedToolExecutor tools = FencedToolExecutor.builder()
 *     .verifier(TokenVerifier.signedBy(keys))
 *     .journal(FileToolJournal.open(Path.of("/var/lib/agent/tools.jsonl")))
 *     .tool(sendEmail)
 *     .build();
 * ToolResult sent = tools.call(lease, "send_email", arguments);
 * }</pre>
 *
 * <p>A call goes through these steps, in order:
 *
 * <ol>
 *   <li>the lease is asked for its token: a run whose lease is known lost is refused here, before
 *       anything is recorded (CONTRACT C6); the token is verified by the executor's {@link
 *       TokenVerifier}, and one that fails is refused before anything is recorded (C15);
 *   <li>the call is journaled as INTENDED (durably, with {@link FileToolJournal}), unless the key's
 *       mark is already above its fence: then it is refused and the journal stays as it was (a
 *       stale run's calls cost no journal space, CONTRACT C21);
 *   <li>the lease is asked again, and the journal admits the token and records the call as STARTED
 *       in one atomic step; a lower fence than the key's mark is refused (C9) and journaled as
 *       REFUSED (a call that went stale after its intent was recorded); once a higher fence is
 *       admitted, no lower one starts a call (C10);
 *   <li>the tool runs, on the caller's thread, outside any lock, so one run may call tools in
 *       parallel;
 *   <li>the call is journaled as FINISHED or FAILED.
 * </ol>
 *
 * <h2>What it cannot stop (CONTRACT C12)</h2>
 *
 * A call that started before a newer run was admitted runs to its end: the executor cannot recall
 * it. A tool whose effect lands on a system that never sees the token (an e-mail, a payment API
 * without idempotency) is protected only by the run stopping when its lease is lost; forward {@link
 * ToolInvocation#token()} wherever the downstream system can check it. After a crash, use {@link
 * #inDoubt} to find calls whose outcome nobody confirmed.
 *
 * <p>Thread-safe.
 */
public final class FencedToolExecutor implements FenceGuard {
  /** The resource kind this guard reports to its {@link GuardListener}. */
  public static final String RESOURCE = "tool";

  private final Map<String, FencedTool> tools;
  private final ToolJournal journal;
  private final GuardOptions options;

  /** Present, verify, check the call against the {@link ToolScope}, step, report. */
  private final GuardPipeline<Request> pipeline;

  /** The executor's step (journal, admit, run, journal) and its in-doubt listing. */
  private final JournaledCalls calls;

  private final ToolScope scope;

  private FencedToolExecutor(Builder b, GuardOptions options) {
    this.scope = b.scope;
    this.tools = Map.copyOf(b.tools);
    this.journal = b.journal;
    this.calls = new JournaledCalls(b.journal, b.redaction);
    this.options = options;
    this.pipeline = new GuardPipeline<>(options, this::checkScope);
  }

  /**
   * Starts a builder.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Calls a tool under a fence.
   *
   * @param fenced the run's lease (refused locally once lost) or its token
   * @param toolName the tool
   * @param arguments the arguments
   * @return the result
   * @throws StaleFenceException if a newer run has been admitted for the key; the tool did not run
   * @throws io.leasehold.fencing.TokenVerificationException if the token fails verification;
   *     nothing was recorded and the tool did not run
   * @throws io.leasehold.fencing.LeaseLostException if the lease is known lost; the tool did not
   *     run
   * @throws DuplicateCallException if the same run has a call with the same tool and idempotency
   *     key in flight (the key is reserved at admission, so concurrent duplicates run the tool
   *     once); the tool did not run
   * @throws ToolCallFailedException if the tool threw
   * @throws IllegalArgumentException if the tool is unknown or an argument is null
   * @throws io.leasehold.adapters.ResourceAccessException if the journal cannot be written
   */
  public ToolResult call(Fenced fenced, String toolName, JsonNode arguments) {
    FencedTool tool = toolName == null ? null : tools.get(toolName);
    String unusable =
        tool == null ? "unknown tool " + toolName + "; known: " + tools.keySet() : null;
    return pipeline.run(fenced, new Request(tool, arguments, unusable), this::admitAndRun);
  }

  /**
   * Calls a tool that is not registered with the executor, under a fence: for agent-framework
   * integrations, where the framework owns the tools and the executor only admits and journals
   * their calls. Everything else is as in {@link #call(Fenced, String, JsonNode)}.
   *
   * @param fenced the run's lease (refused locally once lost) or its token
   * @param tool the tool; its name is what the journal records
   * @param arguments the arguments
   * @return the result
   * @throws StaleFenceException if a newer run has been admitted for the key; the tool did not run
   * @throws io.leasehold.fencing.TokenVerificationException if the token fails verification;
   *     nothing was recorded and the tool did not run
   * @throws io.leasehold.fencing.LeaseLostException if the lease is known lost; the tool did not
   *     run
   * @throws ToolCallFailedException if the tool threw
   * @throws IllegalArgumentException if the tool, its name or an argument is null
   */
  public ToolResult call(Fenced fenced, FencedTool tool, JsonNode arguments) {
    boolean unnamed = tool == null || tool.name() == null || tool.name().isBlank();
    String unusable = unnamed ? "tool and its name must not be null or blank" : null;
    return pipeline.run(fenced, new Request(tool, arguments, unusable), this::admitAndRun);
  }

  /**
   * A call's tool and arguments, as the scope judges them. What makes the call unusable is said
   * only once the token is verified, as it always was: a refused token is reported as refused,
   * whatever else is wrong with the call.
   *
   * @param tool the tool, or null if none could be found
   * @param arguments the arguments, possibly null
   * @param unusable why the tool cannot be called, or null if it can
   */
  private record Request(FencedTool tool, JsonNode arguments, String unusable) {}

  /** The executor's scope: a usable call, with arguments, that the token's key may make. */
  private void checkScope(FencingToken token, Request request) {
    if (request.unusable() != null) {
      throw new IllegalArgumentException(request.unusable());
    }
    if (request.arguments() == null) {
      throw new IllegalArgumentException("arguments must not be null (use a NullNode)");
    }
    String toolName = request.tool().name();
    if (!scope.permits(token.key(), toolName, request.arguments())) {
      throw io.leasehold.fencing.internal.OutOfScope.refusal(
          token,
          "tool " + toolName,
          "call",
          scope.ownerOf(toolName, request.arguments()),
          scope,
          "nothing was journaled");
    }
  }

  /**
   * Starts a run: admits its token in the journal, so that from now on every call of an older run
   * of the session is refused, even before this run calls a tool, and lists the calls of older runs
   * whose outcome nobody confirmed. Call it when a new run of a session begins; calling it again
   * for the same run changes nothing.
   *
   * @param run the new run's lease or token
   * @return the admission and the in-doubt calls of older runs, oldest first
   * @throws StaleFenceException if a newer run has been admitted already: this run must not start
   * @throws io.leasehold.fencing.TokenVerificationException if the token fails verification;
   *     nothing changed
   * @throws io.leasehold.fencing.LeaseLostException if the lease is known lost; nothing changed
   */
  public RunStart startRun(Fenced run) {
    return pipeline.runForKey(
        run, call -> new RunStart(journal.admit(call.token()), calls.inDoubtBefore(call.token())));
  }

  /**
   * Admits a run's token without a call: {@link #startRun} without the list of in-doubt calls.
   *
   * @param fenced the run's lease or token
   * @return the admission, with the mark before it
   * @throws StaleFenceException if a newer run has been admitted for the key; nothing changed
   * @throws io.leasehold.fencing.TokenVerificationException if the token fails verification;
   *     nothing changed
   * @throws io.leasehold.fencing.LeaseLostException if the lease is known lost; nothing changed
   */
  @Override
  public Admission admit(Fenced fenced) {
    return pipeline.runForKey(fenced, call -> journal.admit(call.token()));
  }

  /**
   * The highest fence admitted for a key, from the journal.
   *
   * @param key the lease key
   * @return the mark, or empty if none
   */
  @Override
  public OptionalLong highWaterMark(LeaseKey key) {
    Arguments.required(key, "key");
    return journal.highWaterMark(key);
  }

  /**
   * What {@link #startRun} found.
   *
   * @param admission the run's token and the mark before it
   * @param inDoubt calls of older runs of the session that were intended or started and never
   *     confirmed, oldest first
   */
  public record RunStart(Admission admission, List<ToolCall> inDoubt) {
    /**
     * Checks and copies the components.
     *
     * @throws IllegalArgumentException if a component is null
     */
    public RunStart {
      if (admission == null || inDoubt == null) {
        throw new IllegalArgumentException("all components are required");
      }
      inDoubt = List.copyOf(inDoubt);
    }
  }

  /** The executor's step, once the pipeline has verified and scoped the call. */
  private ToolResult admitAndRun(GuardPipeline.Call<Request> request) {
    return calls.run(request, request.argument().tool(), request.argument().arguments());
  }

  /**
   * Calls of earlier runs of the presenter's session that were intended or started but never
   * confirmed: their effect may or may not have happened. The next run decides what to do (retry
   * idempotent ones, ask the user, compensate).
   *
   * @param current the current run's lease or token
   * @return the in-doubt calls of runs with a lower fence, oldest first
   */
  public List<ToolCall> inDoubt(Fenced current) {
    return calls.inDoubtBefore(pipeline.verified(current));
  }

  /**
   * Sets a key's high-water mark, for recovery after a forged token or a leaked key raised it
   * beyond the reach of honest runs (docs/security.md). Allowed only to operators the executor's
   * {@link AdminPolicy} names; recorded in the journal (see {@link ToolJournal#markResets()}).
   *
   * @param key the key
   * @param newMark the new mark; 0 forgets the key's fence (the next call of any fence is admitted)
   * @param operator who resets it
   * @param reason why
   * @return the recorded reset
   * @throws AdminDeniedException if the policy refuses the operator; nothing changed
   * @throws IllegalArgumentException if an argument is invalid; nothing changed
   */
  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    options.checkReset(key, newMark, operator, reason);
    return journal.resetMark(key, newMark, operator, reason);
  }

  /**
   * Every mark reset recorded in the journal, oldest first.
   *
   * @return the resets
   */
  @Override
  public List<MarkReset> markResets() {
    return journal.markResets();
  }

  /**
   * Every journaled call of a session.
   *
   * @param key the session
   * @return the calls, oldest first
   */
  public List<ToolCall> calls(LeaseKey key) {
    Arguments.required(key, "key");
    return journal.calls(key);
  }

  /**
   * The names of the registered tools.
   *
   * @return the names
   */
  public Set<String> toolNames() {
    return tools.keySet();
  }

  /**
   * Options of a {@link FencedToolExecutor}: the shared ones of {@link GuardBuilder} (the listener
   * hears resource kind {@value FencedToolExecutor#RESOURCE}; the journal, not the clock, dates
   * mark resets), the journal, the tools and the journal's redaction. Not thread-safe.
   */
  public static final class Builder extends GuardBuilder<Builder> {
    private final Map<String, FencedTool> tools = new LinkedHashMap<>();
    private ToolJournal journal;
    private JournalRedaction redaction = JournalRedaction.secretsRedacted();
    private ToolScope scope = ToolScope.anyCall();

    private Builder() {}

    /**
     * What the journal records in place of arguments, results and errors. Default {@link
     * JournalRedaction#secretsRedacted()} (argument values and error messages are not journaled);
     * {@link JournalRedaction#none()} journals everything as it is.
     *
     * @param redaction the redaction
     * @return this builder
     */
    public Builder redaction(JournalRedaction redaction) {
      this.redaction = Arguments.required(redaction, "redaction");
      return self();
    }

    /**
     * Which key may make which calls (CONTRACT C19). Default {@link ToolScope#anyCall()}: records
     * and replays are per key, and the tools themselves act only for the key they are handed.
     *
     * @param scope the scope
     * @return this builder
     */
    public Builder scope(ToolScope scope) {
      this.scope = Arguments.required(scope, "scope");
      return self();
    }

    /**
     * Registers a tool, to be called by name. An executor without tools is fine when an
     * agent-framework integration passes each call's tool (see {@code call(Fenced, FencedTool,
     * JsonNode)}).
     *
     * @param tool the tool
     * @return this builder
     * @throws IllegalArgumentException if a tool of that name is registered already
     */
    public Builder tool(FencedTool tool) {
      if (tool == null || tool.name() == null || tool.name().isBlank()) {
        throw new IllegalArgumentException("tool and its name must not be null or blank");
      }
      if (tools.putIfAbsent(tool.name(), tool) != null) {
        throw new IllegalArgumentException(
            "a tool named " + tool.name() + " is registered already");
      }
      return self();
    }

    /**
     * Where calls are journaled and marks kept. Required: {@link FileToolJournal} for a durable,
     * multi-process journal, {@link MemoryToolJournal} for one that lives in this process only.
     *
     * @param journal the journal
     * @return this builder
     */
    public Builder journal(ToolJournal journal) {
      this.journal = Arguments.required(journal, "journal");
      return self();
    }

    /**
     * Builds the executor.
     *
     * @return the executor
     * @throws IllegalStateException if no verifier or no journal was given
     */
    public FencedToolExecutor build() {
      GuardOptions options = options(RESOURCE);
      if (journal == null) {
        throw new IllegalStateException(
            "choose a journal (FileToolJournal, JdbcToolJournal or MemoryToolJournal)");
      }
      return new FencedToolExecutor(this, options);
    }
  }

  // The agent-tool core's entry point: io.leasehold.adapters.agent.AgentToolFence

  /**
   * Calls a tool that is not registered with the executor, for a token its caller has already asked
   * the lease for: the agent-tool core presents the run's lease once, keeps the token for its own
   * refusals, and hands both here, so the lease is not asked again before verification. The lease
   * is still asked right before the journal admits (step 3). Everything else is as in {@link
   * #call(Fenced, FencedTool, JsonNode)}.
   *
   * @param run the run's lease or token, asked once more right before the journal admits
   * @param presented the token {@code run} presented for this call
   * @param tool the tool; its name is what the journal records
   * @param arguments the arguments
   * @return the result
   * @throws StaleFenceException if a newer run has been admitted for the key; the tool did not run
   * @throws io.leasehold.fencing.TokenVerificationException if the token fails verification;
   *     nothing was recorded and the tool did not run
   * @throws io.leasehold.fencing.LeaseLostException if the lease is known lost; the tool did not
   *     run
   * @throws DuplicateCallException if the same run's call with the same idempotency key is in
   *     flight; the tool did not run
   * @throws ToolCallFailedException if the tool threw
   * @throws IllegalArgumentException if the tool, its name or an argument is null
   */
  public ToolResult callPresented(
      Fenced run, FencingToken presented, FencedTool tool, JsonNode arguments) {
    Arguments.allRequired(run, presented);
    boolean unnamed = tool == null || tool.name() == null || tool.name().isBlank();
    String unusable = unnamed ? "tool and its name must not be null or blank" : null;
    return pipeline.run(
        new PresentedFirst(presented, run),
        new Request(tool, arguments, unusable),
        this::admitAndRun);
  }
}
