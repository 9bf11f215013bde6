import { StaleFenceError, TokenVerificationError } from './errors.js';
import { type FencingToken, type LeaseKey, keyName } from './token.js';
import type { TokenVerifier } from './verify.js';

/** What an admission did: the mark before it. */
export interface Admission {
  readonly token: FencingToken;
  readonly previousMark: bigint;
}

/** Whether a verified token's key owns what the operation touches (C19). */
export type Scope = (token: FencingToken) => boolean;

/** A resource's high-water marks: admit a fence at least the highest seen, per key. */
export interface FenceGuard {
  /**
   * Verifies, checks `scope` (before any mark is read), and admits; or throws
   * `TokenVerificationError` or `StaleFenceError`, and nothing changed.
   */
  admit(token: string | FencingToken, scope?: Scope): Promise<Admission>;
  /**
   * The key's highest admitted fence, read without admitting anything (undefined: none yet).
   * Optional: the agent fences use it to skip a tool's input hooks for a superseded run.
   */
  markOf?(key: LeaseKey): Promise<bigint | undefined>;
}

/**
 * Whether a scope's answer admits: only the boolean `true` does. A Promise (an async scope) or
 * any other value is a scope written wrongly, refused with a message that says so; a Promise's
 * rejection is handled here, so that it is not reported as unhandled.
 */
export function scopeAdmits(answer: unknown): boolean {
  if (answer === true) return true;
  if (answer === false) return false;
  if (answer !== null && (typeof answer === 'object' || typeof answer === 'function')
    && typeof (answer as { then?: unknown }).then === 'function') {
    Promise.resolve(answer as PromiseLike<unknown>).then(undefined, () => undefined);
    throw new TokenVerificationError('OUT_OF_SCOPE',
      'refused: the scope returned a Promise, but a scope must be synchronous and return a boolean (true admits); nothing was admitted');
  }
  throw new TokenVerificationError('OUT_OF_SCOPE',
    `refused: the scope returned ${answer === null ? 'null' : typeof answer}, but a scope must be synchronous and return a boolean (true admits); nothing was admitted`);
}

/** `scope` answering only through `scopeAdmits`, so that no guard admits on a truthy non-boolean. */
export function strictScope<T>(scope: (token: T) => unknown): (token: T) => boolean {
  return (token) => scopeAdmits(scope(token));
}

/** The steps before a mark: verification, then scope. */
export function verifyInScope(verifier: TokenVerifier, presented: string | FencingToken, scope?: Scope): FencingToken {
  const token = verifier.verify(presented);
  if (scope !== undefined && !scopeAdmits(scope(token))) {
    throw new TokenVerificationError('OUT_OF_SCOPE',
      `refused token for ${keyName(token.key)}: what the call touches belongs to another key; nothing was admitted`);
  }
  return token;
}

export interface InMemoryGuardOptions {
  readonly verifier: TokenVerifier;
  /** Most keys remembered; past it new keys are refused (never another key's mark moved). Default 100000. */
  readonly maxKeys?: number;
}

/**
 * High-water marks in memory, for one process: they are lost with it. A full guard refuses new
 * keys rather than evict, so one account's flood never lets another's stale run in (C19, C21).
 */
export class InMemoryFenceGuard implements FenceGuard {
  readonly #verifier: TokenVerifier;
  readonly #maxKeys: number;
  readonly #marks = new Map<string, bigint>();

  constructor(options: InMemoryGuardOptions) {
    this.#verifier = options.verifier;
    this.#maxKeys = options.maxKeys ?? 100_000;
  }

  async admit(presented: string | FencingToken, scope?: Scope): Promise<Admission> {
    const token = verifyInScope(this.#verifier, presented, scope);
    const id = JSON.stringify([token.key.accountId, token.key.sessionId]);
    const mark = this.#marks.get(id);
    if (mark === undefined && this.#marks.size >= this.#maxKeys) {
      throw new TokenVerificationError('OUT_OF_SCOPE',
        `refused ${keyName(token.key)}: this guard already holds ${this.#maxKeys} keys; use a durable guard`);
    }
    const previous = mark ?? 0n;
    if (token.fence < previous) {
      throw new StaleFenceError(token.key.accountId, token.key.sessionId, token.fence, previous);
    }
    this.#marks.set(id, token.fence);
    return { token, previousMark: previous };
  }

  async markOf(key: LeaseKey): Promise<bigint | undefined> {
    return this.#marks.get(JSON.stringify([key.accountId, key.sessionId]));
  }

  /** The highest fence admitted for a key, if any. */
  highWaterMark(accountId: string, sessionId: string): bigint | undefined {
    return this.#marks.get(JSON.stringify([accountId, sessionId]));
  }
}
