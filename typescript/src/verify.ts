import { createHmac, timingSafeEqual, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { TokenVerificationError } from './errors.js';
import { stripEnds, TokenKeySet } from './keys.js';
import { type FencingToken, formatToken, keyName, presentedToken, signedContent } from './token.js';
import { canonicalSignature } from './ed25519.js';

/** Decides whether a presented token came from the lease store (and is still valid). */
export interface TokenVerifier {
  /**
   * Returns the token, or throws `TokenVerificationError`. Takes the token's text, or a token
   * `parseToken` returned; anything else (null, a number, an object built elsewhere) is
   * `MALFORMED`, and the window is checked on every call.
   */
  verify(token: string | FencingToken): FencingToken;
}

export interface SignedVerifierOptions {
  /** Milliseconds since the epoch, now; default `Date.now`. */
  readonly clock?: () => number;
  /**
   * How far this host's clock may be from the lease database's: a whole number of ms from 0 to
   * 600000; absent (undefined) means 5000, anything else (null, a string, 1.5) is refused.
   */
  readonly clockSkewMillis?: number;
}

const DEFAULT_SKEW = 5000;
const MAX_REMEMBERED = 16384;
const MAX_SKEW = 600_000;

/** Now, in whole milliseconds; a clock that gives no finite number cannot admit anything. */
function nowMillis(clock: () => number): bigint {
  const t = clock();
  if (typeof t !== 'number' || !Number.isFinite(t)) {
    // A broken clock is the verifier's own fault: no verdict, so nothing is admitted.
    throw new Error(`the verifier's clock gave ${String(t)}, not a time in milliseconds`);
  }
  return BigInt(Math.floor(t));
}

/**
 * Admits tokens signed by a key of the set, inside their validity window give or take the skew
 * allowance, in the order of docs/token-spec.md section 5: parse, signed, window, key id, length,
 * then the cryptography. A token whose signature verified is remembered (its window is still
 * checked on every call).
 */
export function signedBy(keys: TokenKeySet, options: SignedVerifierOptions = {}): TokenVerifier {
  let clock: unknown;
  let skewMillis: unknown;
  try {
    clock = options.clock ?? Date.now;
    skewMillis = options.clockSkewMillis;
  } catch (e) {
    throw new Error(`the verifier's options could not be read: ${String(e)}`);
  }
  if (typeof clock !== 'function') throw new Error(`clock must be a function giving milliseconds since the epoch, was ${typeof clock}`);
  // Only an absent value means the default: null (say, from a JSON config) is refused, not read as 5 s.
  if (skewMillis === undefined) skewMillis = DEFAULT_SKEW;
  if (typeof skewMillis !== 'number' || !Number.isSafeInteger(skewMillis) || skewMillis < 0 || skewMillis > MAX_SKEW) {
    throw new Error(`clock skew must be a whole number of milliseconds from 0 to ${MAX_SKEW} (10 minutes), was ${typeof skewMillis === 'number' ? skewMillis : skewMillis === null ? 'null' : typeof skewMillis}`);
  }
  const skew = BigInt(skewMillis);
  const verified = new Set<string>();
  return {
    verify(presented) {
      const token = presentedToken(presented);
      const sig = token.signature;
      if (sig === undefined) {
        throw new TokenVerificationError('UNSIGNED',
          `refused unsigned token for ${keyName(token.key)}: this resource admits only signed tokens; build the lease store with a signing key`);
      }
      const now = nowMillis(clock as () => number);
      if (now > sig.validUntil + skew) {
        throw new TokenVerificationError('EXPIRED',
          `refused token for ${keyName(token.key)}, fence ${token.fence}: it expired at ${sig.validUntil} ms and it is now ${now} ms (skew allowed ${skew} ms); its run ended or stopped renewing`);
      }
      if (now + skew < sig.validFrom) {
        throw new TokenVerificationError('NOT_YET_VALID',
          `refused token for ${keyName(token.key)}: it is valid only from ${sig.validFrom} ms and it is now ${now} ms; synchronise this host's clock (NTP)`);
      }
      const text = formatToken(token);
      if (verified.has(text)) return token;
      const key = keys.get(sig.keyId);
      if (key === undefined) {
        throw new TokenVerificationError('UNKNOWN_KEY',
          `refused token for ${keyName(token.key)}: key ${sig.keyId} is not in this resource's key set (${keys.ids.join(', ')}); add the lease store's new verification key`);
      }
      const value = Buffer.from(sig.value, 'base64url');
      const content = signedContent(token);
      let ok: boolean;
      if (key.scheme === 'hmac-sha256') {
        ok = value.length === 32 && timingSafeEqual(createHmac('sha256', key.material as Buffer).update(content).digest(), value);
      } else {
        ok = value.length === 64 && canonicalSignature(value) && cryptoVerify(null, content, key.material as KeyObject, value);
      }
      if (!ok) {
        throw new TokenVerificationError('BAD_SIGNATURE',
          `refused token for ${keyName(token.key)}: its signature does not match key ${sig.keyId} (forged or altered token)`);
      }
      if (verified.size >= MAX_REMEMBERED) verified.clear();
      verified.add(text);
      return token;
    },
  };
}

/** The opt-out: every well-formed token is taken at its word. Only for trusted code in one process. */
export function trustEveryWriter(): TokenVerifier {
  return { verify: (t) => presentedToken(t) };
}

/** The HTTP header (and message attribute) that carries a token's text. */
export const TOKEN_HEADER = 'Leasehold-Token';

/**
 * Reads and verifies the `Leasehold-Token` header as Node's `req.headers['leasehold-token']`
 * gives it (docs/token-spec.md section 8): absent is `MISSING`; SP and HTAB around the value are
 * removed (RFC 9110's optional white space) and nothing else, so an empty value, a line break or
 * any other space is `MALFORMED`, as is a header sent more than once.
 */
export function verifyHeader(value: string | readonly string[] | undefined, verifier: TokenVerifier): FencingToken {
  if (value === undefined || value === null) {
    throw new TokenVerificationError('MISSING', `missing ${TOKEN_HEADER} header: the writer must send its fencing token`);
  }
  const text = headerText(value);
  if (typeof text !== 'string') {
    throw new TokenVerificationError('MALFORMED', typeof text === 'number'
      ? `malformed fencing token: the ${TOKEN_HEADER} header was sent ${text} times`
      : `malformed fencing token: the ${TOKEN_HEADER} header must be text`);
  }
  return verifier.verify(stripEnds(text, ' \t'));
}

/**
 * The header's one value, the number of values if it was sent more than once, or undefined if it
 * is not text. Total: a hostile value (a revoked Proxy, whose inspection throws a TypeError) is
 * not text, so the carrier refuses it as MALFORMED and never fails with another error (spec 5).
 */
function headerText(value: unknown): string | number | undefined {
  try {
    if (typeof value === 'string') return value;
    if (!Array.isArray(value)) return undefined;
    if (value.length !== 1) return Number.isSafeInteger(value.length) ? value.length : undefined;
    const first: unknown = value[0];
    return typeof first === 'string' ? first : undefined;
  } catch {
    // Inspecting the value threw (a revoked Proxy, a throwing getter): it is no header text.
    return undefined;
  }
}
