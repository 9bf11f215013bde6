// The agent-tool core (AgentToolFence) on its own, without an SDK: what runs, what is refused, and
// what a failing guard or journal does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AgentToolFence, InMemoryFenceGuard, InMemoryToolJournal, LeaseLostError, RunStoppedError, trustEveryWriter,
} from '../dist/index.js';
import { freshFence, session, tokenFor } from '../fixtures/agent-tokens.mjs';

const ran = [];
const body = (text) => async () => { ran.push(text); return `did ${text}`; };

test('a call runs once admitted; a retry with its key is replayed; a newer run stops the older one for good', async () => {
  const fence = freshFence();
  const key = session();
  const [old, newer] = [tokenFor(key, 1n), tokenFor(key, 2n)];
  ran.length = 0;
  assert.deepEqual(await fence.call(old, 'pay', {}, 'k', body('pay')), { kind: 'ran', value: 'did pay' });
  assert.deepEqual(await fence.call(old, 'pay', {}, 'k', body('pay again')), { kind: 'replayed', value: 'did pay' });
  await fence.startRun(newer);
  const refused = await fence.call(old, 'pay', {}, undefined, body('late'));
  assert.equal(refused.kind, 'refused');
  assert.equal(refused.stop.refusal.reason, 'superseded');
  assert.equal(refused.stop.messageForModel(),
    'Tool call refused by Leasehold: a newer run of this session (fence 2) has taken over, so this run (fence 1) is superseded. ' +
    'The tool "pay" was NOT run. Stop now: do not retry, do not call any other tool, and end your turn.');
  assert.equal(fence.stopOf(refused.stop.token), refused.stop);
  assert.equal((await fence.call(old, 'other', {}, undefined, body('later'))).stop.refusal.reason, 'superseded');
  assert.deepEqual(ran, ['pay']);
});

test('a lost lease, a bad idempotency key, a duplicate still running: refused, nothing runs', async () => {
  const fence = freshFence();
  const text = tokenFor(session(), 1n);
  ran.length = 0;
  const lost = await fence.call({ token: () => { throw new LeaseLostError(text, 'renewal failed'); } }, 't', {}, undefined, body('lost'));
  assert.equal(lost.stop.refusal.reason, 'lease_lost');
  assert.match(lost.stop.messageForModel(), /has lost its lease on the session/);
  for (const bad of ['', 'k'.repeat(201), 42]) {
    assert.equal((await fence.call(tokenFor(session(), 1n), 't', {}, bad, body('bad key'))).stop.refusal.reason, 'malformed');
  }
  const run = tokenFor(session(), 1n);
  let release;
  const slow = fence.call(run, 't', {}, 'same', () => new Promise((r) => { release = r; }));
  await new Promise((r) => setImmediate(r));
  const dup = await fence.call(run, 't', {}, 'same', body('duplicate'));
  assert.equal(dup.stop.refusal.reason, 'duplicate');
  assert.equal(dup.stop.refusal.action, 'retry_later');
  release('first');
  assert.deepEqual(await slow, { kind: 'ran', value: 'first' });
  assert.deepEqual(ran, []);
  await assert.rejects(fence.invoke(tokenFor(session(), 1n), 't', {}, '', body('x')), RunStoppedError, 'invoke throws the refusal');
});

test("the scope sees the token's key, the tool and its arguments; out of scope runs nothing and stops nothing", async () => {
  const seen = [];
  const fence = new AgentToolFence({
    guard: new InMemoryFenceGuard({ verifier: trustEveryWriter() }),
    scope: (key, tool, args) => { seen.push([key.accountId, tool, args]); return args.path.startsWith(`${key.accountId}/`); },
  });
  const run = tokenFor(session(), 1n);
  ran.length = 0;
  assert.equal((await fence.call(run, 'write', { path: 'victim/x' }, undefined, body('x'))).stop.refusal.reason, 'out_of_scope');
  assert.equal((await fence.call(run, 'write', { path: 'acct-7/x' }, undefined, body('mine'))).kind, 'ran');
  assert.deepEqual(seen, [['acct-7', 'write', { path: 'victim/x' }], ['acct-7', 'write', { path: 'acct-7/x' }]]);
  assert.deepEqual(ran, ['mine']);
});

test('a guard that fails or admits nothing is refused as unavailable; a journal that fails before the tool throws, after it is ignored', async () => {
  const run = tokenFor(session(), 1n);
  ran.length = 0;
  const errors = console.error;
  const warnings = console.warn;
  console.error = () => {};
  console.warn = () => {};
  try {
    for (const admit of [async () => { throw new Error('relation leasehold_high_water SQLSTATE 55P03'); }, async () => undefined]) {
      const r = await new AgentToolFence({ guard: { admit } }).call(run, 't', {}, undefined, body('x'));
      assert.equal(r.stop.refusal.reason, 'unavailable');
      assert.ok(!r.stop.messageForModel().includes('leasehold_high_water'));
    }
    const guard = new InMemoryFenceGuard({ verifier: trustEveryWriter() });
    const broken = { begin: async () => { throw new Error('disk full'); }, finish: async () => {}, fail: async () => {} };
    await assert.rejects(new AgentToolFence({ guard, journal: broken }).call(run, 't', {}, 'k', body('x')), /disk full/);
    assert.deepEqual(ran, []);
    const forgetful = new InMemoryToolJournal();
    forgetful.finish = async () => { throw new Error('disk full'); };
    assert.deepEqual(await new AgentToolFence({ guard, journal: forgetful }).call(run, 't', {}, 'k', body('ran')), { kind: 'ran', value: 'did ran' });
    assert.deepEqual(ran, ['ran']);
  } finally {
    console.error = errors;
    console.warn = warnings;
  }
});

test('a fence needs a guard, and a run is its lease or its token text', async () => {
  assert.throws(() => new AgentToolFence({}), /needs a guard/);
  await assert.rejects(freshFence().call(42, 't', {}, undefined, body('x')), TypeError);
  assert.equal((await freshFence().call('lh2.nonsense', 't', {}, undefined, body('x'))).stop.refusal.reason, 'malformed');
});
