// CONTRACT C22: the shared vectors of docs/token-spec.md (1.1), the same file the Java tests run.
// Every kind of case runs here: tokens, the header carrier, non-text inputs, skews, keys, key sets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseToken, formatToken } from '../dist/index.js';
import { verdict } from '../scripts/token-verdicts.mjs';

const file = JSON.parse(readFileSync(new URL('../../docs/token-vectors.json', import.meta.url), 'utf8'));

function check(c) {
  const out = {};
  const v = verdict(c, file.signingKeys, out);
  if (c.kind === 'keySet' && v === 'valid') assert.deepEqual(out.ids, c.ids);
  return v;
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
    assert.equal(check(c), c.expect);
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
