import { createHmac, timingSafeEqual, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { TokenVerificationError } from './errors.js';
import { TokenKeySet } from './keys.js';
import { type FencingToken, formatToken, keyName, parseToken, signedContent } from './token.js';

/** Decides whether a presented token came from the lease store (and is still valid). */
export interface TokenVerifier {
  /** Returns the token, or throws `TokenVerificationError`. */
  verify(token: string | FencingToken): FencingToken;
}

export interface SignedVerifierOptions {
  /** Milliseconds since the epoch, now; default `Date.now`. */
  readonly clock?: () => number;
  /** How far this host's clock may be from the lease database's, in ms; default 5000. */
  readonly clockSkewMillis?: number;
}

const DEFAULT_SKEW = 5000;
const MAX_REMEMBERED = 16384;

/**
 * Admits tokens signed by a key of the set, inside their validity window give or take the skew
 * allowance, in the order of docs/token-spec.md section 5: parse, signed, window, key id, length,
 * then the cryptography. A token whose signature verified is remembered (its window is still
 * checked on every call).
 */
export function signedBy(keys: TokenKeySet, options: SignedVerifierOptions = {}): TokenVerifier {
  const clock = options.clock ?? Date.now;
  const skew = BigInt(options.clockSkewMillis ?? DEFAULT_SKEW);
  if (skew < 0n || skew > 600_000n) throw new Error('clock skew must be between 0 and 10 minutes');
  const verified = new Set<string>();
  return {
    verify(presented) {
      const token = typeof presented === 'string' ? parseToken(presented) : presented;
      const sig = token.signature;
      if (sig === undefined) {
        throw new TokenVerificationError('UNSIGNED',
          `refused unsigned token for ${keyName(token.key)}: this resource admits only signed tokens; build the lease store with a signing key`);
      }
      const now = BigInt(Math.floor(clock()));
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
        ok = value.length === 64 && cryptoVerify(null, content, key.material as KeyObject, value);
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
  return { verify: (t) => (typeof t === 'string' ? parseToken(t) : t) };
}
