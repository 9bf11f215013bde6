/** Why a token was refused, as in docs/token-spec.md section 5 (and the Java enum). */
export type TokenRefusal =
  | 'MISSING'
  | 'MALFORMED'
  | 'UNSIGNED'
  | 'EXPIRED'
  | 'NOT_YET_VALID'
  | 'UNKNOWN_KEY'
  | 'BAD_SIGNATURE'
  | 'OUT_OF_SCOPE'
  | 'NOT_ISSUED'
  | 'UNAVAILABLE';

/** A resource refused a token it could not verify. Nothing changed. */
export class TokenVerificationError extends Error {
  readonly reason: TokenRefusal;

  constructor(reason: TokenRefusal, message: string) {
    super(message);
    this.name = 'TokenVerificationError';
    this.reason = reason;
  }

  /** The HTTP status a service should answer with. */
  get httpStatus(): number {
    if (this.reason === 'MALFORMED') return 400;
    if (this.reason === 'OUT_OF_SCOPE' || this.reason === 'NOT_ISSUED') return 403;
    if (this.reason === 'UNAVAILABLE') return 503;
    return 401;
  }
}

/**
 * A newer run of the session has been admitted: the presented fence is below the key's
 * high-water mark. Nothing changed; the caller's run must stop.
 */
export class StaleFenceError extends Error {
  readonly accountId: string;
  readonly sessionId: string;
  readonly presentedFence: bigint;
  readonly highestFence: bigint;

  constructor(accountId: string, sessionId: string, presentedFence: bigint, highestFence: bigint) {
    super(
      `stale fence ${presentedFence} for ${accountId}/${sessionId}: this resource already admitted fence ` +
        `${highestFence}, so a newer run of the session is in charge; stop this run`,
    );
    this.name = 'StaleFenceError';
    this.accountId = accountId;
    this.sessionId = sessionId;
    this.presentedFence = presentedFence;
    this.highestFence = highestFence;
  }
}

/**
 * The PostgreSQL guard's mark store cannot prove a write safe: its high-water table is not the one
 * the Java `HighWaterSchema` creates, or a key's mark is not a fence (the table was edited outside
 * Leasehold). Nothing changed; the message names the table and the repair. The same rules, and
 * the same words, as the Java `FencedJdbcWriter`'s (there `MarkStoreException` and the table
 * check's error).
 */
export class MarkStoreError extends Error {
  override readonly name = 'MarkStoreError';

  /** `table`: the schema-qualified table, as the message names it. */
  constructor(readonly table: string, message: string) {
    super(message);
  }
}
