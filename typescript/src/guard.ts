import { StaleFenceError, TokenVerificationError } from './errors.js';
import { type FencingToken, keyName } from './token.js';
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
}

/** The steps before a mark: verification, then scope. */
export function verifyInScope(verifier: TokenVerifier, presented: string | FencingToken, scope?: Scope): FencingToken {
  const token = verifier.verify(presented);
  if (scope !== undefined && !scope(token)) {
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

  /** The highest fence admitted for a key, if any. */
  highWaterMark(accountId: string, sessionId: string): bigint | undefined {
    return this.#marks.get(JSON.stringify([accountId, sessionId]));
  }
}
