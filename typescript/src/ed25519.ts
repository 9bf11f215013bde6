import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

/**
 * Ed25519 key material checked as docs/token-spec.md section 3.2 requires (issue 46, item 6): DER
 * exactly as RFC 8410 writes it, public keys that are canonical encodings (RFC 8032 5.1.3) of
 * points not of small order, and signatures whose S is below the group order and whose R is a
 * canonical encoding. Node's key import accepts more (unused bits in the BIT STRING, trailing
 * bytes, non-canonical y), and a small-order public key lets anyone forge.
 */

/** The DER of an Ed25519 SubjectPublicKeyInfo up to the 32 key bytes (RFC 8410 section 4). */
export const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** The DER of an Ed25519 OneAsymmetricKey v1 up to the 32 seed bytes (RFC 8410 section 7). */
export const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

const OID = Buffer.from('06032b6570', 'hex');

/**
 * Whether HMAC material is, or resembles, an Ed25519 key in DER: it starts with either prefix, or
 * it is a DER SEQUENCE holding the Ed25519 OID (1.3.101.112) anywhere. A random secret matches
 * with probability below 2^-40.
 */
export function looksLikeEd25519Der(material: Buffer): boolean {
  for (const prefix of [SPKI_PREFIX, PKCS8_PREFIX]) {
    if (material.length >= prefix.length && material.subarray(0, prefix.length).equals(prefix)) return true;
  }
  return material.length > 0 && material[0] === 0x30 && material.indexOf(OID) >= 0;
}

const P = (1n << 255n) - 19n;
const L = (1n << 252n) + 27742317777372353535851937790883648493n;

function mod(a: bigint): bigint {
  const r = a % P;
  return r < 0n ? r + P : r;
}

function pow(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

const D = mod(-121665n * pow(121666n, P - 2n));
const SQRT_M1 = pow(2n, (P - 1n) / 4n);

function littleEndian(bytes: Buffer, clearTopBit: boolean): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) {
    n = (n << 8n) | BigInt(i === bytes.length - 1 && clearTopBit ? bytes[i]! & 0x7f : bytes[i]!);
  }
  return n;
}

/**
 * Doubles a point in projective coordinates on -x^2 + y^2 = 1 + d x^2 y^2 (no inversion; the
 * formula has no exceptional case on this curve, since d is not a square).
 */
function double([x, y, z]: [bigint, bigint, bigint]): [bigint, bigint, bigint] {
  const b = mod((x + y) * (x + y));
  const c = mod(x * x);
  const d = mod(y * y);
  const e = mod(-c);
  const f = mod(e + d);
  const h = mod(z * z);
  const j = mod(f - 2n * h);
  return [mod((b - c - d) * j), mod(f * (e - d)), mod(f * j)];
}

/** Why a 32-byte public key encoding is refused, or undefined if it is acceptable. */
export function pointProblem(encoded: Buffer): string | undefined {
  const sign = (encoded[31]! & 0x80) !== 0;
  const y = littleEndian(encoded, true);
  if (y >= P) return 'non-canonical encoding (y is not below 2^255-19)';
  // RFC 8032 5.1.3: x = u v^3 (u v^7)^((p-5)/8), with u = y^2 - 1 and v = d y^2 + 1.
  const u = mod(y * y - 1n);
  const v = mod(D * y * y + 1n);
  const v3 = mod(v * v * v);
  let x = mod(u * v3 * pow(u * v3 * v3 * v, (P - 5n) / 8n));
  const vxx = mod(v * x * x);
  if (vxx === mod(-u)) x = mod(x * SQRT_M1);
  else if (vxx !== u) return 'not a point on the curve';
  if (x === 0n && sign) return 'non-canonical encoding (x is zero and its sign bit is set)';
  if ((x & 1n) === 1n !== sign) x = P - x;
  let q: [bigint, bigint, bigint] = [x, y, 1n];
  for (let i = 0; i < 3; i++) q = double(q);
  if (q[0] === 0n && q[1] === q[2]) return 'a point of small order (anyone could forge signatures under it)';
  return undefined;
}

/** Whether a 64-byte signature is canonical: S below the group order, R with y below p and no signed x = 0. */
export function canonicalSignature(signature: Buffer): boolean {
  if (littleEndian(signature.subarray(32, 64), false) >= L) return false;
  const y = littleEndian(signature.subarray(0, 32), true);
  if (y >= P) return false;
  const xIsZero = y === 1n || y === P - 1n;
  return !(xIsZero && (signature[31]! & 0x80) !== 0);
}

/** The public key of an exact 44-byte SubjectPublicKeyInfo, or an Error saying what is wrong. */
export function ed25519PublicKey(der: Buffer, context: string): KeyObject {
  if (der.length !== SPKI_PREFIX.length + 32 || !der.subarray(0, SPKI_PREFIX.length).equals(SPKI_PREFIX)) {
    throw new Error(`${context}: not an Ed25519 public key (expected the 44-byte SubjectPublicKeyInfo of RFC 8410: no parameters, no trailing bytes)`);
  }
  const problem = pointProblem(der.subarray(SPKI_PREFIX.length));
  if (problem !== undefined) throw new Error(`${context}: refused Ed25519 public key: ${problem}`);
  try {
    return createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    throw new Error(`${context}: not an Ed25519 public key`);
  }
}

/** The private key of an exact 48-byte PKCS#8 v1 encoding, or an Error. */
export function ed25519PrivateKey(der: Buffer, context: string): KeyObject {
  if (der.length !== PKCS8_PREFIX.length + 32 || !der.subarray(0, PKCS8_PREFIX.length).equals(PKCS8_PREFIX)) {
    throw new Error(`${context}: not an Ed25519 private key (expected the 48-byte PKCS#8 v1 encoding of RFC 8410: no parameters, no attributes, no trailing bytes)`);
  }
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    throw new Error(`${context}: not an Ed25519 private key`);
  }
}
