// CONTRACT C22: the shared vectors of docs/token-spec.md (1.1), the same file the Java tests run.
// Every kind of case runs here: tokens, the header carrier, non-text inputs, skews, keys, key sets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  parseToken, formatToken, parseVerificationKey, parseSigningKey, TokenKeySet, signedBy, verifyHeader,
  TokenVerificationError,
} from '../dist/index.js';

const file = JSON.parse(readFileSync(new URL('../../docs/token-vectors.json', import.meta.url), 'utf8'));

function verifierOf(c) {
  const keys = TokenKeySet.of(c.verifier.keys.map(parseVerificationKey));
  return signedBy(keys, { clock: () => c.nowMillis, clockSkewMillis: c.verifier.clockSkewMillis });
}

function refusal(fn) {
  try {
    fn();
    return 'valid';
  } catch (e) {
    assert.ok(e instanceof TokenVerificationError, `threw ${e}`);
    return e.reason;
  }
}

function refusedOrValid(fn) {
  try {
    fn();
    return 'valid';
  } catch (e) {
    assert.ok(e instanceof Error && !(e instanceof TypeError) && !(e instanceof TokenVerificationError), `threw ${e}`);
    return 'refused';
  }
}

function verdict(c) {
  switch (c.kind ?? 'token') {
    case 'token': {
      let token;
      try {
        token = parseToken(c.token);
      } catch (e) {
        assert.ok(e instanceof TokenVerificationError, `parse threw ${e}`);
        return e.reason;
      }
      return refusal(() => verifierOf(c).verify(token));
    }
    case 'header':
      return refusal(() => verifyHeader(c.header ?? undefined, verifierOf(c)));
    case 'input':
      return refusal(() => verifierOf(c).verify(c.input));
    case 'skew':
      return refusedOrValid(() => signedBy(TokenKeySet.parse(file.signingKeys.hmac.replace('signing', 'verify')),
        { clockSkewMillis: c.clockSkewMillis }));
    case 'verificationKey':
      return refusedOrValid(() => parseVerificationKey(c.text));
    case 'signingKey':
      return refusedOrValid(() => parseSigningKey(c.text));
    case 'keySet': {
      let set;
      const v = refusedOrValid(() => { set = TokenKeySet.parse(c.text); });
      if (v === 'valid') assert.deepEqual(set.ids, c.ids);
      return v;
    }
    default:
      throw new Error(`unknown vector kind ${c.kind}`);
  }
}

test('the vector file has at least 40 cases, every verdict and every kind', () => {
  assert.ok(file.cases.length >= 40);
  assert.equal(file.count, file.cases.length);
  const verdicts = new Set(file.cases.map((c) => c.expect));
  for (const v of ['valid', 'refused', 'MISSING', 'MALFORMED', 'UNSIGNED', 'UNKNOWN_KEY', 'BAD_SIGNATURE', 'EXPIRED', 'NOT_YET_VALID']) {
    assert.ok(verdicts.has(v), v);
  }
  assert.deepEqual([...new Set(file.cases.map((c) => c.kind))].sort(),
    ['header', 'input', 'keySet', 'signingKey', 'skew', 'token', 'verificationKey']);
});

for (const c of file.cases) {
  test(`vector (${c.kind}): ${c.name}`, () => {
    assert.equal(verdict(c), c.expect);
    if (c.token_fields && c.kind === 'token') {
      const t = parseToken(c.token);
      assert.equal(t.fence, BigInt(c.token_fields.fence));
      assert.equal(t.runId, c.token_fields.runId);
      assert.equal(t.key.accountId, c.token_fields.accountId);
      assert.equal(t.key.sessionId, c.token_fields.sessionId);
      assert.equal(t.signature.keyId, c.token_fields.keyId);
      assert.equal(formatToken(t), c.token);
    }
  });
}
