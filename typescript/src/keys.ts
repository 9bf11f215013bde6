import { createPublicKey, type KeyObject } from 'node:crypto';
import { decodeCanonical } from './token.js';
import { ed25519PrivateKey, ed25519PublicKey, looksLikeEd25519Der } from './ed25519.js';

/** A verification key: an HMAC-SHA-256 secret or an Ed25519 public key, with its id. */
export interface VerificationKey {
  readonly keyId: string;
  readonly scheme: 'hmac-sha256' | 'ed25519';
  /** The HMAC secret (secret!) or the Ed25519 public key. */
  readonly material: Buffer | KeyObject;
}

/** A lease store's signing key, checked (its Ed25519 halves match); this package only verifies. */
export interface SigningKey {
  readonly keyId: string;
  readonly scheme: 'hmac-sha256' | 'ed25519';
  /** The key resources verify with. */
  readonly verificationKey: VerificationKey;
}

const VERIFY_PREFIX = 'leasehold-verify-key:v1:';
const SIGNING_PREFIX = 'leasehold-signing-key:v1:';
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_KEYS = 64;
/** Longest key text, after the white space of `stripKeyText`. */
export const MAX_KEY_TEXT_LENGTH = 512;
/** HMAC secrets have 32 to 256 bytes. */
export const MIN_SECRET_BYTES = 32;
export const MAX_SECRET_BYTES = 256;

/**
 * The key text without the white space a text file adds around it: SP, HTAB, CR and LF at either
 * end, nothing else (docs/token-spec.md section 3.1). `String.prototype.trim` would also remove
 * U+00A0, U+2007, U+202F and a byte order mark, which the spec does not allow.
 */
export function stripKeyText(text: string): string {
  return stripEnds(text, KEY_TEXT_SPACE);
}

const KEY_TEXT_SPACE = ' \t\r\n';

/**
 * `text` without the characters of `space` at either end, by index loops: linear in the length
 * (CONTRACT C21). A regex `/^[ ]+|[ ]+$/g` retries its end anchor from every position of an
 * inner run, which costs time quadratic in the run's length.
 */
export function stripEnds(text: string, space: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && space.includes(text.charAt(start))) start++;
  while (end > start && space.includes(text.charAt(end - 1))) end--;
  return text.slice(start, end);
}

function split(text: unknown, prefix: string, what: string): [string, string, string] {
  if (typeof text !== 'string') throw new Error(`malformed ${what}: the key must be text`);
  const t = stripKeyText(text);
  if (t.startsWith('\ufeff')) {
    throw new Error(`malformed ${what}: the text starts with a byte order mark (U+FEFF); save the key file as UTF-8 without one`);
  }
  if (t.length > MAX_KEY_TEXT_LENGTH) {
    throw new Error(`malformed ${what}: longer than ${MAX_KEY_TEXT_LENGTH} characters (an HMAC secret has at most ${MAX_SECRET_BYTES} bytes)`);
  }
  if (!t.startsWith(prefix)) throw new Error(`malformed ${what}: expected text starting with '${prefix}'`);
  const parts = t.slice(prefix.length).split(':');
  if (parts.length !== 3) throw new Error(`malformed ${what}: expected ${prefix}<scheme>:<key id>:<key material>`);
  const [, keyId] = parts as [string, string, string];
  if (!KEY_ID.test(keyId)) throw new Error(`malformed ${what}: key id must be 1 to 64 characters of A-Z a-z 0-9 _ -`);
  return parts as [string, string, string];
}

function decode(materialText: string, what: string): Buffer {
  const material = decodeCanonical(materialText);
  if (material === undefined) throw new Error(`malformed ${what}: key material is not canonical unpadded base64url`);
  return material;
}

function hmacSecret(material: Buffer, what: string, keyId: string): Buffer {
  // Scheme pinning: an Ed25519 key's DER never loads as a secret.
  if (looksLikeEd25519Der(material)) {
    throw new Error(`malformed ${what} ${keyId}: its material is an Ed25519 key, not an HMAC secret; a key's scheme cannot be changed by editing its text`);
  }
  if (material.length < MIN_SECRET_BYTES || material.length > MAX_SECRET_BYTES) {
    throw new Error(`malformed ${what} ${keyId}: an HMAC secret must have ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes (256 to 2048 bits), was ${material.length} bytes`);
  }
  return material;
}

function unknownScheme(scheme: string, what: string): Error {
  return new Error(`malformed ${what}: unknown scheme '${scheme}' (hmac-sha256 or ed25519)`);
}

/**
 * Parses `leasehold-verify-key:v1:<scheme>:<key id>:<material>` (docs/token-spec.md section 3).
 * The error never repeats the key material.
 */
export function parseVerificationKey(text: string): VerificationKey {
  const what = 'verification key';
  const [scheme, keyId, materialText] = split(text, VERIFY_PREFIX, what);
  if (scheme !== 'hmac-sha256' && scheme !== 'ed25519') throw unknownScheme(scheme, what);
  const material = decode(materialText, what);
  if (scheme === 'hmac-sha256') return Object.freeze({ keyId, scheme, material: hmacSecret(material, what, keyId) });
  return Object.freeze({ keyId, scheme, material: ed25519PublicKey(material, `malformed ${what} ${keyId}`) });
}

/**
 * Parses and checks `leasehold-signing-key:v1:...` (docs/token-spec.md section 3): for Ed25519
 * both halves are checked and must be one key pair. The error never repeats the key material.
 */
export function parseSigningKey(text: string): SigningKey {
  const what = 'signing key';
  const [scheme, keyId, materialText] = split(text, SIGNING_PREFIX, what);
  if (scheme !== 'hmac-sha256' && scheme !== 'ed25519') throw unknownScheme(scheme, what);
  if (scheme === 'hmac-sha256') {
    const material = hmacSecret(decode(materialText, what), what, keyId);
    return Object.freeze({ keyId, scheme, verificationKey: Object.freeze({ keyId, scheme, material }) });
  }
  const pair = materialText.split('.');
  if (pair.length !== 2) throw new Error(`malformed ${what} ${keyId}: expected <private key>.<public key>`);
  const context = `malformed ${what} ${keyId}`;
  const privateKey = ed25519PrivateKey(decode(pair[0]!, what), context);
  const publicDer = decode(pair[1]!, what);
  const publicKey = ed25519PublicKey(publicDer, context);
  const derived = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  if (!derived.equals(publicDer)) throw new Error(`${context}: its public key does not match its private key`);
  return Object.freeze({ keyId, scheme, verificationKey: Object.freeze({ keyId, scheme, material: publicKey }) });
}

/** A key given as an object is checked as its text would be: no small-order point, no short secret. */
function checkedKey(k: VerificationKey): VerificationKey {
  if (k === null || typeof k !== 'object' || typeof k.keyId !== 'string' || !KEY_ID.test(k.keyId)) {
    throw new Error('a key set holds verification keys (parseVerificationKey) with ids of 1 to 64 characters of A-Z a-z 0-9 _ -');
  }
  const what = 'verification key';
  if (k.scheme === 'hmac-sha256' && Buffer.isBuffer(k.material)) {
    return Object.freeze({ keyId: k.keyId, scheme: k.scheme, material: hmacSecret(Buffer.from(k.material), what, k.keyId) });
  }
  if (k.scheme === 'ed25519' && !Buffer.isBuffer(k.material) && k.material?.type === 'public') {
    const der = k.material.export({ format: 'der', type: 'spki' });
    return Object.freeze({ keyId: k.keyId, scheme: k.scheme, material: ed25519PublicKey(der, `malformed ${what} ${k.keyId}`) });
  }
  throw new Error(`malformed ${what} ${k.keyId}: an HMAC key holds a Buffer secret, an Ed25519 key a public KeyObject`);
}

/**
 * Runs `read` on a caller's value; a TypeError from inspecting it (a revoked Proxy, a getter that
 * throws) becomes a plain Error that says what was expected, so every entry point refuses hostile
 * values with the package's own message.
 */
function inspected<T>(read: () => T, expected: string): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof TypeError) throw new Error(`${expected}; inspecting the value failed: ${e.message}`);
    throw e;
  }
}

/** The keys a resource accepts, by id: one key text per line, `#` comments and blank lines ignored. */
export class TokenKeySet {
  readonly #keys: ReadonlyMap<string, VerificationKey>;

  private constructor(keys: Map<string, VerificationKey>) {
    this.#keys = keys;
  }

  /** A set of keys with distinct ids, 1 to 64 of them. */
  static of(keys: readonly VerificationKey[]): TokenKeySet {
    const given = inspected(() => (Array.isArray(keys) ? [...keys] : undefined), 'a key set is built from an array of verification keys');
    if (given === undefined) throw new Error('a key set is built from an array of verification keys');
    if (given.length === 0) throw new Error('a key set needs at least one key');
    if (given.length > MAX_KEYS) throw new Error(`a key set holds at most ${MAX_KEYS} keys`);
    const map = new Map<string, VerificationKey>();
    for (const one of given) {
      const k = inspected(() => checkedKey(one), 'a key set holds verification keys (parseVerificationKey)');
      if (map.has(k.keyId)) throw new Error(`duplicate key id ${k.keyId} in the key set`);
      map.set(k.keyId, k);
    }
    return new TokenKeySet(map);
  }

  /**
   * Parses the text form: lines end at LF; SP, HTAB and CR around a line are ignored, no other
   * white space. The error names the line, never the material.
   */
  static parse(text: string): TokenKeySet {
    if (typeof text !== 'string') throw new Error('a key set must be text');
    const keys: VerificationKey[] = [];
    text.split('\n').forEach((raw, i) => {
      const line = stripKeyText(raw);
      if (line === '' || line.startsWith('#')) return;
      try {
        keys.push(parseVerificationKey(line));
      } catch (e) {
        throw new Error(`key set line ${i + 1}: ${(e as Error).message}`);
      }
    });
    return TokenKeySet.of(keys);
  }

  /**
   * The key with this id. An HMAC key's secret is a fresh copy on every call: code that zeroes
   * the Buffer it was handed after use must not change the key this set verifies with (a zeroed
   * set key would admit tokens HMAC-ed with an all-zero secret).
   */
  get(keyId: string): VerificationKey | undefined {
    const k = this.#keys.get(keyId);
    if (k === undefined || !Buffer.isBuffer(k.material)) return k;
    return Object.freeze({ keyId: k.keyId, scheme: k.scheme, material: Buffer.from(k.material) });
  }

  get ids(): string[] {
    return [...this.#keys.keys()];
  }
}
