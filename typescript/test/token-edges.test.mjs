// Issue 46, items 5, 6 and 7: each test fails on the code before the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generateKeyPairSync, createHmac, createPublicKey } from 'node:crypto';
import {
  parseToken, signedContent, parseVerificationKey, parseSigningKey, TokenKeySet, signedBy, trustEveryWriter, verifyHeader,
  InMemoryFenceGuard, TokenVerificationError, fenceTool, REFUSAL_META_KEY,
} from '../dist/index.js';

const vectors = JSON.parse(readFileSync(new URL('../../docs/token-vectors.json', import.meta.url), 'utf8'));
const valid = vectors.cases.find((c) => c.name === 'valid HMAC-SHA-256 token');
const keys = TokenKeySet.of(valid.verifier.keys.map(parseVerificationKey));
const WINDOW_END = Number(valid.token_fields.validUntilMillis);

function reason(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof TokenVerificationError, `threw ${e}`);
    return e.reason;
  }
  return 'valid';
}

async function admitReason(guard, token) {
  try {
    await guard.admit(token);
    return 'admitted';
  } catch (e) {
    assert.ok(e instanceof TokenVerificationError, `threw ${e}`);
    return e.reason;
  }
}

// ---- item 5: objects and non-strings ----

test('a JSON-shaped token object long after its window is refused, not admitted', async () => {
  const parsed = parseToken(valid.token);
  const shaped = JSON.parse(JSON.stringify(parsed, (k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  const late = signedBy(keys, { clock: () => Number.MAX_SAFE_INTEGER });
  assert.equal(reason(() => late.verify(shaped)), 'MALFORMED');
  assert.equal(reason(() => late.verify(valid.token)), 'EXPIRED');
  const guard = new InMemoryFenceGuard({ verifier: late });
  assert.equal(await admitReason(guard, shaped), 'MALFORMED');
  assert.equal(guard.highWaterMark('acct-7', 'chat-1'), undefined);
});

test('a copy of a parsed token with its bigints kept is not taken either', () => {
  const parsed = parseToken(valid.token);
  const copy = { ...parsed, signature: { ...parsed.signature, validUntil: 2n ** 62n } };
  const verifier = signedBy(keys, { clock: () => WINDOW_END + 10_000_000 });
  assert.equal(reason(() => verifier.verify(copy)), 'MALFORMED');
  assert.equal(reason(() => trustEveryWriter().verify(copy)), 'MALFORMED');
});

test('a token the package parsed is taken, frozen, and its window checked on every call', () => {
  let now = WINDOW_END;
  const verifier = signedBy(keys, { clock: () => now });
  const parsed = parseToken(valid.token);
  assert.ok(Object.isFrozen(parsed) && Object.isFrozen(parsed.signature) && Object.isFrozen(parsed.key));
  assert.equal(reason(() => verifier.verify(parsed)), 'valid');
  now = WINDOW_END + 5001;
  assert.equal(reason(() => verifier.verify(parsed)), 'EXPIRED');
});

test('verify(null) and every non-string is MALFORMED like Java, never a TypeError', async () => {
  const verifier = signedBy(keys, { clock: () => WINDOW_END });
  for (const input of [null, undefined, 42, 42n, true, [], [valid.token], {}, () => valid.token, Symbol('t')]) {
    assert.equal(reason(() => verifier.verify(input)), 'MALFORMED', String(typeof input));
    assert.equal(reason(() => trustEveryWriter().verify(input)), 'MALFORMED');
    assert.equal(reason(() => parseToken(input)), 'MALFORMED');
    assert.equal(await admitReason(new InMemoryFenceGuard({ verifier }), input), 'MALFORMED');
  }
});

// ---- item 6: Ed25519 keys as RFC 8032 / 8410 require ----

const SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
];
const NON_CANONICAL = [
  '0100000000000000000000000000000000000000000000000000000000000080',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
];
const keyText = (derHex) => `leasehold-verify-key:v1:ed25519:weak:${Buffer.from(derHex, 'hex').toString('base64url')}`;
const spki = (point) => `302a300506032b6570032100${point}`;

function forgedUnder(keyId) {
  const unsignedText = `lh2.1000000.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x.1796300000000.1796300060000.${keyId}`;
  const sig = Buffer.alloc(64);
  sig[0] = 1; // R = the identity, S = 0
  return `${unsignedText}.${sig.toString('base64url')}`;
}

test('every small-order Ed25519 public key is refused at load', () => {
  for (const p of SMALL_ORDER) {
    assert.throws(() => parseVerificationKey(keyText(spki(p))), /small order/, p);
  }
});

test('non-canonical point encodings are refused at load, so R = identity, S = 0 forges nothing', () => {
  for (const p of NON_CANONICAL) {
    assert.throws(() => parseVerificationKey(keyText(spki(p))), /non-canonical encoding/, p);
  }
  assert.throws(() => TokenKeySet.parse(keyText(spki(NON_CANONICAL[1]))), /line 1/);
  assert.equal(parseToken(forgedUnder('weak')).fence, 1000000n);
});

test('a small-order key given as a KeyObject is refused by TokenKeySet.of', () => {
  const { publicKey } = generateKeyPairSync('ed25519');
  assert.doesNotThrow(() => TokenKeySet.of([{ keyId: 'ok', scheme: 'ed25519', material: publicKey }]));
  const identity = createPublicKey({ key: Buffer.from(spki(SMALL_ORDER[0]), 'hex'), format: 'der', type: 'spki' });
  assert.throws(() => TokenKeySet.of([{ keyId: 'weak', scheme: 'ed25519', material: identity }]), /small order/);
  assert.throws(() => TokenKeySet.of([{ keyId: 'short', scheme: 'hmac-sha256', material: Buffer.alloc(8) }]), /32 to 256 bytes/);
});

test('DER other than RFC 8410 writes it is refused (BIT STRING unused bits, trailing byte, NULL parameters)', () => {
  const { publicKey } = generateKeyPairSync('ed25519');
  const point = publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
  for (const der of [`302a300506032b6570032101${point}`, `${spki(point)}00`, `302c300706032b65700500032100${point}`]) {
    assert.throws(() => parseVerificationKey(keyText(der)), /not an Ed25519 public key/, der);
  }
  assert.equal(parseVerificationKey(keyText(spki(point))).scheme, 'ed25519');
  assert.throws(() => parseVerificationKey(keyText(spki(point)).replace(':ed25519:', ':hmac-sha256:')), /is an Ed25519 key/);
});

test('an Ed25519 signing key whose halves differ is refused', () => {
  const a = vectors.signingKeys.ed25519;
  const b = vectors.signingKeys.ed25519Other;
  assert.equal(parseSigningKey(a).keyId, 'ed-2026-12');
  const mixed = a.slice(0, a.lastIndexOf('.')) + b.slice(b.lastIndexOf('.'));
  assert.throws(() => parseSigningKey(mixed), /does not match/);
});

test('a signature with S above the group order is refused', () => {
  const e = vectors.cases.find((c) => c.name === 'valid Ed25519 token');
  const edKeys = TokenKeySet.of(e.verifier.keys.map(parseVerificationKey));
  const sig = Buffer.from(e.token.slice(e.token.lastIndexOf('.') + 1), 'base64url');
  const L = (1n << 252n) + 27742317777372353535851937790883648493n;
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig[i]);
  s += L;
  for (let i = 32; i < 64; i++) { sig[i] = Number(s & 0xffn); s >>= 8n; }
  const malleated = e.token.slice(0, e.token.lastIndexOf('.') + 1) + sig.toString('base64url');
  const verifier = signedBy(edKeys, { clock: () => e.nowMillis });
  assert.equal(reason(() => verifier.verify(e.token)), 'valid');
  assert.equal(reason(() => verifier.verify(malleated)), 'BAD_SIGNATURE');
});

// ---- item 7: the header carrier ----

test('the header strips only SP and HTAB; absent is MISSING, empty is MALFORMED', () => {
  const verifier = signedBy(keys, { clock: () => WINDOW_END });
  assert.equal(reason(() => verifyHeader(` \t${valid.token}\t `, verifier)), 'valid');
  assert.equal(reason(() => verifyHeader([valid.token], verifier)), 'valid');
  assert.equal(reason(() => verifyHeader(undefined, verifier)), 'MISSING');
  assert.equal(reason(() => verifyHeader('', verifier)), 'MALFORMED');
  assert.equal(reason(() => verifyHeader(' \t ', verifier)), 'MALFORMED');
  assert.equal(reason(() => verifyHeader([valid.token, valid.token], verifier)), 'MALFORMED');
  for (const ws of ['\n', '\r', '\u000b', '\f', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u001c']) {
    assert.equal(reason(() => verifyHeader(`${valid.token}${ws}`, verifier)), 'MALFORMED', JSON.stringify(ws));
    assert.equal(reason(() => verifyHeader(`${ws}${valid.token}`, verifier)), 'MALFORMED', JSON.stringify(ws));
  }
});

// ---- key texts: white space and BOM (item 8, the Node side) ----

test('key texts strip SP, HTAB, CR and LF only: a BOM or a no-break space is refused', () => {
  const text = valid.verifier.keys[0];
  assert.equal(parseVerificationKey(` \t${text}\r\n`).keyId, 'hmac-2026-12');
  for (const ws of ['\u00a0', '\u2007', '\u202f', '\ufeff', '\u001c', '\u000b', '\f', '\u3000']) {
    assert.throws(() => parseVerificationKey(`${ws}${text}`), Error, JSON.stringify(ws));
    assert.throws(() => TokenKeySet.parse(`${text}${ws}\n`), /line 1/, JSON.stringify(ws));
  }
  assert.throws(() => parseVerificationKey(`\ufeff${text}`), /byte order mark/);
  assert.equal(TokenKeySet.parse(`# keys\r\n${text}\r\n\r\n`).ids.length, 1);
  const big = `leasehold-verify-key:v1:hmac-sha256:k:${Buffer.alloc(257, 7).toString('base64url')}`;
  assert.throws(() => parseVerificationKey(big), /32 to 256 bytes/);
  assert.equal(createHmac('sha256', Buffer.alloc(256, 7)).digest().length, 32);
  assert.equal(parseVerificationKey(`leasehold-verify-key:v1:hmac-sha256:k:${Buffer.alloc(256, 7).toString('base64url')}`).keyId, 'k');
});

// ---- red team on the verifiers (issue 46): refused input costs bounded CPU, hostile values ----

// A 256,000-character run took 31 s with the regex trim (quadratic); linear takes milliseconds.
// The timeout is a generous bound on the whole test, not a timing assertion.
test('verifyHeader trims a long SP or HTAB run in linear time, not quadratic', { timeout: 20_000 }, () => {
  const verifier = signedBy(keys, { clock: () => WINDOW_END });
  for (const ws of [' ', '\t']) {
    assert.equal(reason(() => verifyHeader(`x${ws.repeat(256_000)}x`, verifier)), 'MALFORMED', JSON.stringify(ws));
  }
  assert.equal(reason(() => verifyHeader(`x${' \t'.repeat(500_000)}x`, verifier)), 'MALFORMED');
  assert.equal(reason(() => verifyHeader(`${valid.token}${' '.repeat(256_000)}x`, verifier)), 'MALFORMED');
  // Optional white space is removed whatever its length: the token inside is still valid, as in Java.
  assert.equal(reason(() => verifyHeader(`${valid.token}${' '.repeat(256_000)}`, verifier)), 'valid');
});

test('key texts and key sets strip a long white-space run in linear time, not quadratic', { timeout: 20_000 }, () => {
  const run = ' \t\r'.repeat(333_334);
  assert.throws(() => parseVerificationKey(`x${run}x`), /longer than 512/);
  assert.throws(() => parseSigningKey(`x${run}x`), /longer than 512/);
  assert.throws(() => TokenKeySet.parse(`x${run}x`), /line 1: .*longer than 512/);
  assert.equal(TokenKeySet.parse(`${valid.verifier.keys[0]}${run}`).ids.length, 1);
});

test('a revoked Proxy is MALFORMED at the header carrier and refused by every entry point, never a TypeError', async () => {
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const verifier = signedBy(keys, { clock: () => WINDOW_END });
  assert.equal(reason(() => verifyHeader(revoked, verifier)), 'MALFORMED');
  assert.equal(reason(() => verifyHeader([revoked], verifier)), 'MALFORMED');
  assert.equal(reason(() => verifier.verify(revoked)), 'MALFORMED');
  assert.equal(await admitReason(new InMemoryFenceGuard({ verifier }), revoked), 'MALFORMED');
  const notTypeError = (fn) => assert.throws(fn, (e) => !(e instanceof TypeError) && e instanceof Error);
  notTypeError(() => TokenKeySet.of(revoked));
  notTypeError(() => TokenKeySet.of([revoked]));
  notTypeError(() => signedBy(keys, revoked));
  const tool = fenceTool({ guard: new InMemoryFenceGuard({ verifier }) }, () => ({ content: [] }));
  assert.equal((await tool({}, revoked))._meta[REFUSAL_META_KEY].reason, 'malformed');
  assert.equal((await tool({}, { _meta: revoked }))._meta[REFUSAL_META_KEY].reason, 'malformed');
});

test('a clock skew of null or any non-number is refused, not read as the default 5 s', () => {
  for (const skew of [null, '5000', 5000n, true, {}, 1.5, -1, 600_001]) {
    assert.throws(() => signedBy(keys, { clockSkewMillis: skew }), /whole number of milliseconds/, String(skew));
  }
  assert.equal(reason(() => signedBy(keys, { clock: () => WINDOW_END + 5000 }).verify(valid.token)), 'valid');
  assert.equal(reason(() => signedBy(keys, { clock: () => WINDOW_END + 5001 }).verify(valid.token)), 'EXPIRED');
});

test('zeroing the secret TokenKeySet.get handed out does not change the key the set verifies with', () => {
  const verifier = signedBy(keys, { clock: () => WINDOW_END });
  const keyId = keys.ids[0];
  const handed = keys.get(keyId).material;
  handed.fill(0);
  assert.notEqual(keys.get(keyId).material, handed);
  assert.ok(!keys.get(keyId).material.equals(handed), 'the set still holds its secret');
  assert.equal(reason(() => verifier.verify(valid.token)), 'valid');
  const t = parseToken(valid.token);
  const signedWithZero = `${signedContent(t).toString('ascii')}.${createHmac('sha256', Buffer.alloc(handed.length)).update(signedContent(t)).digest('base64url')}`;
  assert.equal(reason(() => verifier.verify(signedWithZero)), 'BAD_SIGNATURE');
});
