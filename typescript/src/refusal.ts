import { StaleFenceError, TokenVerificationError } from './errors.js';
import type { FencingToken, LeaseKey } from './token.js';

/**
 * Why a write or call was refused, in the one vocabulary of docs/refusal-spec.md (the Java
 * `io.leasehold.fencing.Refusal.Reason`, in wire form).
 */
export type RefusalReason =
  | 'superseded' | 'lease_lost' | 'missing' | 'malformed' | 'forged' | 'expired'
  | 'out_of_scope' | 'duplicate' | 'unavailable';

/** What a refused run does next (the Java `Refusal.Action`, in wire form). */
export type RefusalAction = 'stop_run' | 'skip_call' | 'retry_later';

/** The action of every reason: it follows from the reason alone. */
export const REFUSAL_ACTIONS: Readonly<Record<RefusalReason, RefusalAction>> = Object.freeze({
  superseded: 'stop_run',
  lease_lost: 'stop_run',
  missing: 'stop_run',
  malformed: 'stop_run',
  forged: 'stop_run',
  expired: 'stop_run',
  out_of_scope: 'skip_call',
  duplicate: 'retry_later',
  unavailable: 'retry_later',
});

/** The refusal reason of each token-verification failure (docs/token-spec.md section 5). */
export const TOKEN_REFUSAL_REASONS: Readonly<Record<string, RefusalReason>> = Object.freeze({
  MISSING: 'missing',
  MALFORMED: 'malformed',
  UNSIGNED: 'forged',
  UNKNOWN_KEY: 'forged',
  BAD_SIGNATURE: 'forged',
  NOT_ISSUED: 'forged',
  EXPIRED: 'expired',
  NOT_YET_VALID: 'expired',
  OUT_OF_SCOPE: 'out_of_scope',
  UNAVAILABLE: 'unavailable',
});

/** The vocabulary's own words, the same in Java (`Refusal`) and in docs/refusal-vectors.json. */
export const REFUSAL_WORDS = Object.freeze({
  duplicate: 'a call of this run with the same tool and idempotency key is still running; retry once it finished to get its result',
  unavailable: "the server could not check this call: its token verifier, mark store or journal failed (the details are in the server's log); try again later",
});

/** A refusal: why, whose token, and what the refused run does next (docs/refusal-spec.md). */
export interface Refusal {
  readonly reason: RefusalReason;
  readonly action: RefusalAction;
  /** The key the token names, when it could be read. */
  readonly key?: LeaseKey;
  /** The fence the token presented, when it could be read. */
  readonly fence?: bigint;
  /** The key's highest admitted fence, for `superseded`. */
  readonly highestSeen?: bigint;
  /** The token's validity window in ISO-8601, for `expired` (each left out past year 9999). */
  readonly validFrom?: string;
  readonly validUntil?: string;
  /** What happened and how to repair it, for people. */
  readonly message: string;
}

/** What a refusal says beyond its reason. */
export interface RefusalDetails {
  /** The token, when it could be read: its key and fence, and for `expired` its window. */
  readonly token?: FencingToken;
  /** The key's mark, for `superseded`. */
  readonly highestSeen?: bigint;
  /** The message of reasons without words of their own (the verifier's or the scope's). */
  readonly detail?: string;
}

/** The last millisecond of year 9999: later instants have no four-digit ISO-8601 form. */
const MAX_INSTANT_MILLIS = 253_402_300_799_999n;

/**
 * A detail that says nothing: only these characters, the set docs/refusal-spec.md ("Blank
 * details") names and the Java `Refusal` spells alike. Not `String.prototype.trim`: Java's
 * `isBlank` has another set (it takes U+001C-U+001F, not the no-break spaces and U+FEFF), and the
 * two languages wrote different words for the same detail.
 */
const BLANK = /^[\t\n\x0B\f\r\x1C-\x1F \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]*$/;

/** An instant in the vocabulary's form (UTC, milliseconds), or undefined outside years 1970-9999. */
function iso(millis: bigint): string | undefined {
  return millis < 0n || millis > MAX_INSTANT_MILLIS ? undefined : new Date(Number(millis)).toISOString();
}

/**
 * The refusal for a reason, in the vocabulary's own words for the reasons that have them
 * (superseded, expired, duplicate, unavailable); `detail` is the message of the others, or
 * `refused` when it is missing or blank (docs/refusal-spec.md, "Blank details"), each lone
 * surrogate in it written as U+FFFD. Only a
 * superseded refusal keeps `highestSeen`, and only an expired one the token's window. As the Java
 * `Refusal.of(reason, token, highestSeen, detail)`.
 */
export function refusal(reason: RefusalReason, details: RefusalDetails = {}): Refusal {
  const { token, highestSeen, detail } = details;
  const window = reason === 'expired' ? token?.signature : undefined;
  const validFrom = window === undefined ? undefined : iso(window.validFrom);
  const validUntil = window === undefined ? undefined : iso(window.validUntil);
  let message: string;
  switch (reason) {
    case 'superseded':
      message = `a newer run of this session has been admitted (fence ${highestSeen ?? 'unknown'}), so this run must stop`;
      break;
    case 'duplicate':
    case 'unavailable':
      message = REFUSAL_WORDS[reason];
      break;
    case 'expired':
      message = 'the token is outside its validity window' +
        (validFrom !== undefined && validUntil !== undefined ? ` (${validFrom} to ${validUntil})` : '') +
        " at the server's time: the run's lease ended or stopped renewing, so this run must stop";
      break;
    default:
      // A lone surrogate is written as U+FFFD, as the Java Refusal does: the written form is JSON text.
      message = detail === undefined || BLANK.test(detail) ? 'refused' : detail.toWellFormed();
  }
  return {
    reason,
    action: REFUSAL_ACTIONS[reason],
    ...(token === undefined ? {} : { key: token.key, fence: token.fence }),
    ...(reason === 'superseded' && highestSeen !== undefined ? { highestSeen } : {}),
    ...(validFrom === undefined ? {} : { validFrom }),
    ...(validUntil === undefined ? {} : { validUntil }),
    message,
  };
}

/**
 * The refusal a guard's error stands for: `StaleFenceError` is `superseded`, a
 * `TokenVerificationError` the reason `TOKEN_REFUSAL_REASONS` gives; anything else is a failure
 * of the guard's own machinery, `unavailable`, whose message names no table (log the error).
 */
export function refusalOf(e: unknown, token?: FencingToken): Refusal {
  if (e instanceof StaleFenceError) return refusal('superseded', { token, highestSeen: e.highestFence });
  if (e instanceof TokenVerificationError) {
    // Only the table's own entries: a reason such as 'constructor' must not reach Object's prototype.
    const known: unknown = Object.prototype.hasOwnProperty.call(TOKEN_REFUSAL_REASONS, e.reason)
      ? TOKEN_REFUSAL_REASONS[e.reason] : undefined;
    const reason: RefusalReason = typeof known === 'string' ? (known as RefusalReason) : 'forged';
    return refusal(reason, { token, detail: e.message });
  }
  return refusal('unavailable', { token });
}

/**
 * The refusal's written form, which the MCP wire carries as its refusal object: members in the
 * documented order, fences as decimal strings, absent members left out; the action is not
 * written (it follows from the reason). As the Java `Refusal.written()`.
 */
export function writtenRefusal(r: Refusal): Record<string, unknown> {
  const out: Record<string, unknown> = { reason: r.reason };
  if (r.key !== undefined) {
    out['accountId'] = r.key.accountId;
    out['sessionId'] = r.key.sessionId;
  }
  if (r.fence !== undefined) out['fence'] = r.fence.toString();
  if (r.highestSeen !== undefined) out['highestSeen'] = r.highestSeen.toString();
  if (r.validFrom !== undefined) out['validFrom'] = r.validFrom;
  if (r.validUntil !== undefined) out['validUntil'] = r.validUntil;
  out['message'] = r.message;
  return out;
}
