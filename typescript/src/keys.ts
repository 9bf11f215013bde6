import { createPublicKey, type KeyObject } from 'node:crypto';
import { decodeCanonical } from './token.js';

/** A verification key: an HMAC-SHA-256 secret or an Ed25519 public key, with its id. */
export interface VerificationKey {
  readonly keyId: string;
  readonly scheme: 'hmac-sha256' | 'ed25519';
  /** The HMAC secret (secret!) or the Ed25519 public key. */
  readonly material: Buffer | KeyObject;
}

const PREFIX = 'leasehold-verify-key:v1:';
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_KEYS = 64;
// DER prefixes of Ed25519 keys: HMAC material that starts with one is refused (scheme pinning).
const ED25519_PUBLIC_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const ED25519_PRIVATE_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function bad(why: string): Error {
  return new Error(`malformed verification key: ${why}`);
}

/**
 * Parses `leasehold-verify-key:v1:<scheme>:<key id>:<material>` (docs/token-spec.md section 3).
 * The error never repeats the key material.
 */
export function parseVerificationKey(text: string): VerificationKey {
  const t = text.trim();
  if (t.length > 512 || !t.startsWith(PREFIX)) throw bad(`expected text starting with '${PREFIX}'`);
  const parts = t.slice(PREFIX.length).split(':');
  if (parts.length !== 3) throw bad(`expected ${PREFIX}<scheme>:<key id>:<key material>`);
  const [scheme, keyId, materialText] = parts as [string, string, string];
  if (!KEY_ID.test(keyId)) throw bad('key id must be 1 to 64 characters of A-Z a-z 0-9 _ -');
  const material = decodeCanonical(materialText);
  if (material === undefined) throw bad(`key ${keyId}: material is not canonical unpadded base64url`);
  if (scheme === 'hmac-sha256') {
    for (const prefix of [ED25519_PUBLIC_PREFIX, ED25519_PRIVATE_PREFIX]) {
      if (material.length >= prefix.length && material.subarray(0, prefix.length).equals(prefix)) {
        throw bad(`key ${keyId}: its material is an Ed25519 key, not an HMAC secret`);
      }
    }
    if (material.length < 32) throw bad(`key ${keyId}: an HMAC secret must have at least 32 bytes`);
    return { keyId, scheme, material };
  }
  if (scheme === 'ed25519') {
    let key: KeyObject;
    try {
      key = createPublicKey({ key: material, format: 'der', type: 'spki' });
    } catch {
      throw bad(`key ${keyId}: not an Ed25519 public key`);
    }
    if (key.asymmetricKeyType !== 'ed25519') throw bad(`key ${keyId}: not an Ed25519 public key`);
    return { keyId, scheme, material: key };
  }
  throw bad(`unknown scheme '${scheme}' (hmac-sha256 or ed25519)`);
}

/** The keys a resource accepts, by id: one key text per line, `#` comments and blank lines ignored. */
export class TokenKeySet {
  readonly #keys: ReadonlyMap<string, VerificationKey>;

  private constructor(keys: Map<string, VerificationKey>) {
    this.#keys = keys;
  }

  /** A set of keys with distinct ids, 1 to 64 of them. */
  static of(keys: readonly VerificationKey[]): TokenKeySet {
    if (keys.length === 0 || keys.length > MAX_KEYS) throw new Error(`a key set holds 1 to ${MAX_KEYS} keys`);
    const map = new Map<string, VerificationKey>();
    for (const k of keys) {
      if (map.has(k.keyId)) throw new Error(`duplicate key id ${k.keyId} in the key set`);
      map.set(k.keyId, k);
    }
    return new TokenKeySet(map);
  }

  /** Parses the text form; the error names the line, never the material. */
  static parse(text: string): TokenKeySet {
    const keys: VerificationKey[] = [];
    text.split('\n').forEach((raw, i) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      try {
        keys.push(parseVerificationKey(line));
      } catch (e) {
        throw new Error(`key set line ${i + 1}: ${(e as Error).message}`);
      }
    });
    return TokenKeySet.of(keys);
  }

  get(keyId: string): VerificationKey | undefined {
    return this.#keys.get(keyId);
  }

  get ids(): string[] {
    return [...this.#keys.keys()];
  }
}
