import { type FenceGuard, strictScope } from './guard.js';
import { type FencingToken, type LeaseKey, parseToken } from './token.js';
import { type Refusal, refusal, refusalOf } from './refusal.js';
import { InMemoryToolJournal, type ToolJournal } from './journal.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './mcp.js';

/**
 * A run's lease, as an agent framework's tool fence sees it: `token()` gives the run's token text
 * (lh2.…), or throws `LeaseLostError` once the run knows its lease is lost. A token's text alone
 * is a run that never learns of a loss.
 */
export interface FencedRun {
  token(): string;
}

/** A run: its lease, or its token's text. */
export type RunOrToken = FencedRun | string;

/** The run knows its lease is lost (a renewal failed, the store said so): it must stop. */
export class LeaseLostError extends Error {
  /** The lost run's token text. */
  readonly tokenText: string;

  constructor(tokenText: string, why: string) {
    super(`the lease of this run is lost (${why}): another run may be in charge; stop this run`);
    this.name = 'LeaseLostError';
    this.tokenText = tokenText;
  }
}

/**
 * Why a run's tool call was refused, and what the model reads in its place: the Java `RunStop`,
 * with the refusal of docs/refusal-spec.md.
 */
export class RunStop {
  constructor(
    /** The refused run's token, when it could be read. */
    readonly token: FencingToken | undefined,
    /** The tool whose call was refused. */
    readonly tool: string,
    /** Why, in the refusal vocabulary shared with Java. */
    readonly refusal: Refusal,
  ) {}

  /**
   * What the model reads in place of the tool's result: that the tool did not run, why, and
   * what to do next (the same words as the Java `RunStop.messageForModel`).
   */
  messageForModel(): string {
    const fence = this.token === undefined ? '' : ` (fence ${this.token.fence})`;
    const notRun = ` The tool "${this.tool}" was NOT run.`;
    let why: string;
    switch (this.refusal.reason) {
      case 'superseded':
        why = `a newer run of this session${this.refusal.highestSeen === undefined ? '' : ` (fence ${this.refusal.highestSeen})`}` +
          ` has taken over, so this run${fence} is superseded.`;
        break;
      case 'lease_lost':
        why = `this run${fence} has lost its lease on the session, so another run may be in charge.`;
        break;
      case 'expired':
        why = `this run's token${fence} has expired: its lease ended or stopped renewing, so another run may be in charge.`;
        break;
      case 'out_of_scope':
        why = "this run's token is not valid for what the call touches.";
        break;
      case 'duplicate':
        why = 'the same call of this run is still running.';
        break;
      case 'unavailable':
        why = 'the fence could not check the call.';
        break;
      case 'malformed':
        // The token was read, and it was the call's idempotency key that was not well formed.
        why = this.refusal.message === IDEMPOTENCY_KEY_MESSAGE ? `${IDEMPOTENCY_KEY_MESSAGE}.` : "this run's token could not be verified.";
        break;
      default:
        why = "this run's token could not be verified.";
    }
    const next = this.refusal.action === 'retry_later'
      ? ' Try again later.'
      : ' Stop now: do not retry, do not call any other tool, and end your turn.';
    return `Tool call refused by Leasehold: ${why}${notRun}${next}`;
  }
}

/**
 * Thrown by a framework's fenced tool to end the run (the Java `RunStoppedException`): its
 * message is the stop's `messageForModel()`, so a framework that hands errors to the model
 * tells it the same.
 */
export class RunStoppedError extends Error {
  readonly stop: RunStop;

  constructor(stop: RunStop) {
    super(stop.messageForModel());
    this.name = 'RunStoppedError';
    this.stop = stop;
  }
}

/** How a fenced call ended: the tool ran, a retry was answered from the journal, or it was refused. */
export type AgentToolOutcome<R> =
  | { readonly kind: 'ran'; readonly value: R }
  | { readonly kind: 'replayed'; readonly value: R }
  | { readonly kind: 'refused'; readonly stop: RunStop };

/** Whether a verified token's key owns what a tool call touches (C19). */
export type ToolScope = (key: LeaseKey, tool: string, args: unknown) => boolean;

export interface AgentToolFenceOptions {
  /** Verifies and admits every call's token (an `InMemoryFenceGuard`, a `PostgresFenceGuard`). */
  readonly guard: FenceGuard;
  /** Whether the token's key owns what the call touches; default every call is its own. */
  readonly scope?: ToolScope;
  /** Where calls with an idempotency key are recorded; default an `InMemoryToolJournal`. */
  readonly journal?: ToolJournal;
  /** Told of each run's first stop (and of every other refusal). */
  readonly onStop?: (stop: RunStop) => void;
}

/** The MCP wire's words for a malformed idempotency key (docs/mcp.md), for an agent tool's call. */
const IDEMPOTENCY_KEY_MESSAGE = `the idempotency key of the call must be a string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`;

/** Stopped runs remembered; past it the oldest are forgotten (the guard still refuses them). */
const MAX_STOPPED = 10_000;

/**
 * The agent-tool core of Node, the twin of the Java `AgentToolFence`: every tool call of an agent
 * framework's fenced tools goes through `call`, which asks the run for its token once (a lost
 * lease is refused there), refuses a run already stopped without asking the guard, admits the
 * token through the guard (verify, scope, mark: the path of `fenceTool`), answers a retry with
 * the same idempotency key from the journal, and only then runs the tool.
 */
export class AgentToolFence {
  readonly guard: FenceGuard;
  readonly #scope: ToolScope | undefined;
  readonly #journal: ToolJournal;
  readonly #onStop: ((stop: RunStop) => void) | undefined;
  readonly #stopped = new Map<string, RunStop>();

  constructor(options: AgentToolFenceOptions) {
    if (options?.guard === undefined || typeof options.guard.admit !== 'function') {
      throw new Error('an AgentToolFence needs a guard: new AgentToolFence({ guard: new InMemoryFenceGuard({ verifier }) })');
    }
    this.guard = options.guard;
    this.#scope = options.scope;
    this.#journal = options.journal ?? new InMemoryToolJournal();
    this.#onStop = options.onStop;
  }

  /**
   * Starts a run as its session's newest: its fence is admitted, so every call of an older run
   * of the session is refused from now on, even before this run calls a tool. Throws what the
   * guard throws (`StaleFenceError` if a newer run started already) or `LeaseLostError`.
   */
  async startRun(run: RunOrToken): Promise<void> {
    await this.guard.admit(tokenTextOf(run));
  }

  /**
   * Calls a tool under the run's fence. `idempotencyKey`, if given, makes a retry of a finished
   * call of the same run answer with the first call's result (the tool does not run again);
   * keys are per run, so a newer run reusing a key runs its own call. What the tool throws is
   * thrown unchanged (and the key may be used again).
   */
  async call<R>(
    run: RunOrToken,
    tool: string,
    args: unknown,
    idempotencyKey: string | undefined,
    body: (token: FencingToken) => R | Promise<R>,
  ): Promise<AgentToolOutcome<R>> {
    let text: string;
    try {
      text = tokenTextOf(run);
    } catch (e) {
      if (!(e instanceof LeaseLostError)) throw e;
      return this.#refused(tokenOrUndefined(e.tokenText), tool, refusal('lease_lost', { token: tokenOrUndefined(e.tokenText), detail: e.message }), true);
    }
    const token = tokenOrUndefined(text);
    if (token === undefined) {
      return this.#refused(undefined, tool, refusal('malformed', { detail: 'the run gave no token in its text form (lh2.…)' }), false);
    }
    if (idempotencyKey !== undefined
      && !(typeof idempotencyKey === 'string' && idempotencyKey.length > 0 && idempotencyKey.length <= MAX_IDEMPOTENCY_KEY_LENGTH)) {
      // As on the MCP wire: a key the model wrote may be anything; the call is not run.
      return this.#refused(token, tool, refusal('malformed', { token, detail: IDEMPOTENCY_KEY_MESSAGE }), false);
    }
    const earlier = this.#stopped.get(token.runId);
    if (earlier !== undefined && earlier.token?.fence === token.fence) {
      return { kind: 'refused', stop: new RunStop(token, tool, earlier.refusal) };
    }
    const scope = this.#scope;
    let admission: unknown;
    try {
      admission = await this.guard.admit(text, scope === undefined ? undefined : strictScope((t) => scope(t.key, tool, args)));
    } catch (e) {
      let r: Refusal;
      try {
        r = refusalOf(e, token);
      } catch {
        r = refusal('unavailable', { token });
      }
      if (r.reason === 'unavailable') logUnavailable(e);
      return this.#refused(token, tool, r, r.reason === 'superseded');
    }
    if (admission === null || typeof admission !== 'object') {
      logUnavailable(admission);
      return this.#refused(token, tool, refusal('unavailable', { token }), false);
    }
    if (idempotencyKey === undefined) return { kind: 'ran', value: await body(token) };
    const entry = JSON.stringify([token.runId, tool, idempotencyKey]);
    // A journal that fails here throws, and the tool does not run.
    const begun = await this.#journal.begin(entry);
    if (begun.state === 'finished') return { kind: 'replayed', value: begun.result as R };
    if (begun.state === 'running') return this.#refused(token, tool, refusal('duplicate', { token }), false);
    let value: R;
    try {
      value = await body(token);
    } catch (e) {
      await this.#recordQuietly(() => this.#journal.fail(entry), tool, 'failure');
      throw e;
    }
    // Once the tool ran, its outcome is the answer, even if the journal cannot record it.
    await this.#recordQuietly(() => this.#journal.finish(entry, value), tool, 'result');
    return { kind: 'ran', value };
  }

  async #recordQuietly(record: () => Promise<void>, tool: string, what: string): Promise<void> {
    try {
      await record();
    } catch (e) {
      console.warn(`leasehold: the tool ${tool} ran but its ${what} could not be journaled; a retry with its key may run it again:`, e);
    }
  }

  /**
   * The framework adapters' end of `call`: the tool's value, the journaled value of a replayed
   * retry, or for a refusal either a thrown `RunStoppedError` (`endRunOnRefusal`, the default) or
   * the model's message in place of the result.
   */
  async invoke<R>(
    run: RunOrToken,
    tool: string,
    args: unknown,
    idempotencyKey: string | undefined,
    body: (token: FencingToken) => R | Promise<R>,
    endRunOnRefusal = true,
  ): Promise<R | string> {
    const outcome = await this.call(run, tool, args, idempotencyKey, body);
    if (outcome.kind !== 'refused') return outcome.value;
    if (endRunOnRefusal) throw new RunStoppedError(outcome.stop);
    return outcome.stop.messageForModel();
  }

  /**
   * Whether this fence would refuse the run's next call, found without admitting anything (for
   * the hooks a framework runs before a call is admitted): the run's stop if its lease is lost,
   * its token unreadable, the fence refused it as superseded or lost before, or the guard's mark
   * (where the guard can read it, `markOf`) is above its fence. Undefined is no promise: the
   * call itself is still admitted (or refused) when it runs.
   */
  async stopBeforeAdmission(run: RunOrToken, tool: string): Promise<RunStop | undefined> {
    let text: string;
    try {
      text = tokenTextOf(run);
    } catch (e) {
      const token = e instanceof LeaseLostError ? tokenOrUndefined(e.tokenText) : undefined;
      return new RunStop(token, tool, e instanceof LeaseLostError
        ? refusal('lease_lost', { token, detail: e.message })
        : refusal('malformed', { detail: 'the run gave no token in its text form (lh2.…)' }));
    }
    const token = tokenOrUndefined(text);
    if (token === undefined) return new RunStop(undefined, tool, refusal('malformed', { detail: 'the run gave no token in its text form (lh2.…)' }));
    const earlier = this.stopOf(token);
    if (earlier !== undefined) return new RunStop(token, tool, earlier.refusal);
    let mark: unknown;
    try {
      mark = typeof this.guard.markOf === 'function' ? await this.guard.markOf(token.key) : undefined;
    } catch (e) {
      logUnavailable(e);
      return new RunStop(token, tool, refusal('unavailable', { token }));
    }
    if (typeof mark === 'bigint' && mark > token.fence) {
      return new RunStop(token, tool, refusal('superseded', { token, highestSeen: mark }));
    }
    return undefined;
  }

  /** The stop of a run refused as superseded or lost, if this fence refused it. */
  stopOf(token: FencingToken): RunStop | undefined {
    const stop = this.#stopped.get(token.runId);
    return stop?.token?.fence === token.fence ? stop : undefined;
  }

  #refused<R>(token: FencingToken | undefined, tool: string, r: Refusal, remember: boolean): AgentToolOutcome<R> {
    const stop = new RunStop(token, tool, r);
    // Only a superseded or lost run is a fact about the run; a token that failed verification
    // proves nothing about the run it names, so it is never remembered.
    if (remember && token !== undefined) {
      if (this.#stopped.size >= MAX_STOPPED) this.#stopped.delete(this.#stopped.keys().next().value!);
      this.#stopped.set(token.runId, stop);
    }
    if (this.#onStop !== undefined) this.#onStop(stop);
    return { kind: 'refused', stop };
  }
}

/** A tool call's idempotency key in the string argument `name` (for `idempotencyKey`). */
export function idempotencyKeyArgument(name: string): (tool: string, args: unknown) => string | undefined {
  return (_tool, args) => {
    const value = args !== null && typeof args === 'object' ? (args as Record<string, unknown>)[name] : undefined;
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };
}

/** The run's token text; a lost lease throws `LeaseLostError`. */
export function tokenTextOf(run: RunOrToken): string {
  if (typeof run === 'string') return run;
  if (run === null || typeof run !== 'object' || typeof run.token !== 'function') {
    throw new TypeError('a run is its lease ({ token(): string }) or its token text (lh2.…)');
  }
  const text: unknown = run.token();
  if (typeof text !== 'string') throw new TypeError("a run's token() must give the token's text form (lh2.…)");
  return text;
}

/** The token of a text, or undefined if it is not one. */
export function tokenOrUndefined(text: string): FencingToken | undefined {
  try {
    return parseToken(text);
  } catch {
    return undefined;
  }
}

function logUnavailable(e: unknown): void {
  try {
    console.error('leasehold: refused an agent tool call as unavailable: the fence could not check it:', e);
  } catch {
    console.error('leasehold: refused an agent tool call as unavailable (the error could not be printed)');
  }
}
