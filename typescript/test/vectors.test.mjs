// CONTRACT C22: the shared vectors of docs/token-spec.md, the same file the Java tests run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseToken, formatToken, parseVerificationKey, TokenKeySet, signedBy, TokenVerificationError } from '../dist/index.js';

const file = JSON.parse(readFileSync(new URL('../../docs/token-vectors.json', import.meta.url), 'utf8'));

function verdict(c) {
  let token;
  try {
    token = parseToken(c.token);
  } catch (e) {
    assert.ok(e instanceof TokenVerificationError, `parse threw ${e}`);
    return e.reason;
  }
  const keys = TokenKeySet.of(c.verifier.keys.map(parseVerificationKey));
  const verifier = signedBy(keys, { clock: () => c.nowMillis, clockSkewMillis: c.verifier.clockSkewMillis });
  try {
    verifier.verify(token);
    return 'valid';
  } catch (e) {
    assert.ok(e instanceof TokenVerificationError, `verify threw ${e}`);
    return e.reason;
  }
}

test('the vector file has at least 40 cases and every verdict', () => {
  assert.ok(file.cases.length >= 40);
  assert.equal(file.count, file.cases.length);
  const verdicts = new Set(file.cases.map((c) => c.expect));
  for (const v of ['valid', 'MALFORMED', 'UNSIGNED', 'UNKNOWN_KEY', 'BAD_SIGNATURE', 'EXPIRED', 'NOT_YET_VALID']) {
    assert.ok(verdicts.has(v), v);
  }
});

for (const c of file.cases) {
  test(`vector: ${c.name}`, () => {
    assert.equal(verdict(c), c.expect);
    if (c.token_fields) {
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
