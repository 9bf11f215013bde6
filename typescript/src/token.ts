import { TokenVerificationError } from './errors.js';

/** The format this package reads and writes (docs/token-spec.md). */
export const TEXT_PREFIX = 'lh2';
/** Longest accepted token text. */
export const MAX_TEXT_LENGTH = 1400;
/** Longest account or session id, in UTF-16 code units. */
export const MAX_KEY_PART_LENGTH = 128;
const MAX_LONG = (1n << 63n) - 1n;

/** A lease key: the session a token belongs to. */
export interface LeaseKey {
  readonly accountId: string;
  readonly sessionId: string;
}

/** The signed part of a token: its validity window in Unix milliseconds, key id and signature. */
export interface TokenSignature {
  readonly validFrom: bigint;
  readonly validUntil: bigint;
  readonly keyId: string;
  /** The signature, unpadded base64url. */
  readonly value: string;
}

/** A parsed token; `signature` is absent for an unsigned one. */
export interface FencingToken {
  readonly key: LeaseKey;
  readonly fence: bigint;
  readonly runId: string;
  readonly signature?: TokenSignature;
}

const B64URL = /^[A-Za-z0-9_-]+$/;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const POSITIVE = /^[1-9][0-9]{0,18}$/;
// White space in the Java sense, less the controls (refused on their own): see the spec.
const SPACE = /^[\u0020\u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]*$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

// Tokens this package's own parser built: the only objects a verifier takes in place of text
// (issue 46, item 5). A plain object shaped like a token (say, parsed from JSON, with its numbers
// as strings) is not one of them, whatever it holds.
const OWN = new WeakSet<object>();

function own(t: FencingToken): FencingToken {
  const frozen = Object.freeze(t);
  OWN.add(frozen);
  return frozen;
}

/** Whether `value` is a token this package's parser (or `unsigned`) built. */
export function isOwnToken(value: unknown): value is FencingToken {
  return typeof value === 'object' && value !== null && OWN.has(value);
}

/**
 * The token a verifier is given: text is parsed strictly; an object counts only if this
 * package's parser built it. Anything else (null, a number, a JSON-shaped object) is `MALFORMED`.
 */
export function presentedToken(presented: unknown): FencingToken {
  if (typeof presented === 'string') return parseToken(presented);
  if (isOwnToken(presented)) return presented;
  throw malformed(presented === null || typeof presented !== 'object'
    ? `the token must be text, was ${presented === null ? 'null' : typeof presented}`
    : 'the token must be text (or a token parseToken returned), not an object built elsewhere');
}

function malformed(why: string): TokenVerificationError {
  return new TokenVerificationError('MALFORMED', `malformed fencing token: ${why}`);
}

/** Decodes canonical unpadded base64url, or returns undefined. */
export function decodeCanonical(text: string): Buffer | undefined {
  if (!B64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

function decimal(name: string, part: string, zeroOk: boolean): bigint {
  if (zeroOk && part === '0') return 0n;
  if (!POSITIVE.test(part)) {
    throw malformed(`${name} must be a ${zeroOk ? '' : 'positive '}decimal number without sign or leading zeros`);
  }
  const n = BigInt(part);
  if (n > MAX_LONG) throw malformed(`${name} is out of range`);
  return n;
}

function keyPart(name: string, part: string): string {
  const bytes = decodeCanonical(part);
  if (bytes === undefined) throw malformed(`${name} is not canonical unpadded base64url`);
  let value: string;
  try {
    value = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw malformed(`${name} is not valid UTF-8`);
  }
  checkKeyPart(name, value);
  return value;
}

function checkKeyPart(name: string, value: string): void {
  if (value.length === 0 || SPACE.test(value)) throw malformed(`${name} must not be blank`);
  if (value.length > MAX_KEY_PART_LENGTH) throw malformed(`${name} is longer than ${MAX_KEY_PART_LENGTH} characters`);
  if (CONTROL.test(value)) throw malformed(`${name} must not contain control characters`);
  if (!value.isWellFormed()) throw malformed(`${name} holds a lone surrogate`);
}

/**
 * Parses the text form strictly (docs/token-spec.md section 2): anything but the canonical form
 * throws a `TokenVerificationError` with reason `MALFORMED`.
 */
export function parseToken(text: string): FencingToken {
  if (typeof text !== 'string') {
    throw malformed(`the token must be text, was ${text === null ? 'null' : typeof text}`);
  }
  if (text.length > MAX_TEXT_LENGTH) throw malformed(`longer than ${MAX_TEXT_LENGTH} characters`);
  const parts = text.split('.');
  if (parts[0] === 'lh1') {
    throw malformed('the lh1 form (no validity window) is retired: upgrade the lease store that issued it');
  }
  if (parts[0] !== TEXT_PREFIX) {
    throw malformed(`unknown version, expected '${TEXT_PREFIX}' (a newer format may need a newer verifier)`);
  }
  if (parts.length !== 5 && parts.length !== 9) {
    throw malformed(`expected 5 dot-separated parts (9 when signed), found ${parts.length}`);
  }
  const fence = decimal('fence', parts[1]!, false);
  const runId = parts[2]!;
  if (!RUN_ID.test(runId)) throw malformed('run id is not a canonical lower-case UUID');
  const key = Object.freeze({ accountId: keyPart('account id', parts[3]!), sessionId: keyPart('session id', parts[4]!) });
  if (parts.length === 5) return own({ key, fence, runId });
  const validFrom = decimal('valid from', parts[5]!, true);
  const validUntil = decimal('valid until', parts[6]!, true);
  if (validUntil < validFrom) throw malformed('the validity window ends before it starts');
  const keyId = parts[7]!;
  if (!KEY_ID.test(keyId)) throw malformed('key id must be 1 to 64 characters of A-Z a-z 0-9 _ -');
  const value = parts[8]!;
  if (value.length > 128 || decodeCanonical(value) === undefined) {
    throw malformed('signature is not canonical unpadded base64url of at most 128 characters');
  }
  return own({ key, fence, runId, signature: Object.freeze({ validFrom, validUntil, keyId, value }) });
}

function unsignedText(t: FencingToken): string {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
  return `${TEXT_PREFIX}.${t.fence}.${t.runId}.${b64(t.key.accountId)}.${b64(t.key.sessionId)}`;
}

/** The bytes a signature covers: the text up to the dot before the signature. */
export function signedContent(t: FencingToken): Buffer {
  const s = t.signature;
  if (s === undefined) throw new Error('the token is unsigned');
  return Buffer.from(`${unsignedText(t)}.${s.validFrom}.${s.validUntil}.${s.keyId}`, 'ascii');
}

/** The text form; `parseToken(formatToken(t))` gives `t` back. */
export function formatToken(t: FencingToken): string {
  const s = t.signature;
  return s === undefined ? unsignedText(t) : `${signedContent(t).toString('ascii')}.${s.value}`;
}

/** The token without its signature: what a resource may store (it is no credential). */
export function unsigned(t: FencingToken): FencingToken {
  const token = presentedToken(t);
  return own({ key: token.key, fence: token.fence, runId: token.runId });
}

/** `account/session`, for messages. */
export function keyName(key: LeaseKey): string {
  return `${key.accountId}/${key.sessionId}`;
}
