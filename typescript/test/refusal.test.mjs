// The refusal vocabulary against its vectors (docs/refusal-vectors.json), which the Java
// RefusalVectorsTest (fencing-api) runs as well.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { refusalDetails } from '../fixtures/refusal-input.mjs';
import {
  REFUSAL_ACTIONS, REFUSAL_WORDS, StaleFenceError, TOKEN_REFUSAL_REASONS, TokenVerificationError,
  refusal, refusalOf, writtenRefusal,
} from '../dist/index.js';

const vectors = JSON.parse(readFileSync(new URL('../../docs/refusal-vectors.json', import.meta.url), 'utf8'));

test('every reason has the vectors action, and no other reason exists', () => {
  assert.deepEqual(Object.keys(REFUSAL_ACTIONS).sort(), vectors.reasons.map((r) => r.reason).sort());
  for (const r of vectors.reasons) assert.equal(REFUSAL_ACTIONS[r.reason], r.action, r.reason);
});

test('every token failure has the vectors reason', () => {
  assert.deepEqual({ ...TOKEN_REFUSAL_REASONS }, vectors.tokenReasons);
  for (const [reason, expected] of Object.entries(vectors.tokenReasons)) {
    assert.equal(refusalOf(new TokenVerificationError(reason, 'words')).reason, expected, reason);
  }
});

test("the vocabulary's own words are the vectors words", () => {
  assert.deepEqual({ ...REFUSAL_WORDS }, vectors.messages);
});

test('every case is written exactly, members in order', () => {
  assert.ok(vectors.cases.length >= 12);
  for (const c of vectors.cases) {
    const r = refusal(c.input.reason, refusalDetails(c.input));
    assert.equal(r.action, c.action, c.name);
    const written = writtenRefusal(r);
    assert.deepEqual(written, c.object, c.name);
    assert.deepEqual(Object.keys(written), Object.keys(c.object), `${c.name}: member order`);
  }
});

// Every single UTF-16 code unit as a detail: "refused" exactly for the vectors' blank characters,
// U+FFFD for a lone surrogate, the character itself otherwise; the Java RefusalVectorsTest tries the
// same, so the two languages agree on every one (Java's isBlank and JavaScript's trim did not:
// NBSP, U+202F, U+FEFF and U+001C-U+001F).
test('every code unit is blank exactly when the vectors say so', () => {
  const blank = new Set();
  for (const range of vectors.blankCharacters) {
    const [from, to = from] = range.split('-').map((h) => Number.parseInt(h, 16));
    for (let c = from; c <= to; c++) blank.add(c);
  }
  for (let c = 0; c < 0x10000; c++) {
    const detail = String.fromCharCode(c);
    const surrogate = c >= 0xd800 && c <= 0xdfff;
    const expected = blank.has(c) ? 'refused' : surrogate ? '\ufffd' : detail;
    assert.equal(refusal('forged', { detail }).message, expected, `U+${c.toString(16).padStart(4, '0')}`);
  }
});

test("a guard's errors are refusals of their own reason; anything else is unavailable", () => {
  const token = { key: { accountId: 'acct-7', sessionId: 'chat-1' }, fence: 3n, runId: '00000000-0000-4000-8000-000000000000' };
  const stale = refusalOf(new StaleFenceError('acct-7', 'chat-1', 3n, 9n), token);
  assert.equal(stale.reason, 'superseded');
  assert.equal(stale.highestSeen, 9n);
  assert.equal(stale.action, 'stop_run');
  const broken = refusalOf(new Error('relation leasehold_mark does not exist'), token);
  assert.equal(broken.reason, 'unavailable');
  assert.equal(broken.message, REFUSAL_WORDS.unavailable);
  assert.equal(refusalOf(new TokenVerificationError('constructor', 'odd')).reason, 'forged');
});
