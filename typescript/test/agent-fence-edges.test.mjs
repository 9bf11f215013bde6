// Hostile and odd input to the agent-tool core (AgentToolFence) and to fenceTool's _meta: junk leases,
// forged fences, idempotency keys, scopes that answer anything but a boolean. Node 20.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentToolFence, InMemoryFenceGuard, LeaseLostError, RunStoppedError, fenceTool } from '../dist/index.js';
import { freshFence, session, tokenFor, verifier } from '../fixtures/agent-tokens.mjs';

const quiet = () => { const e = console.error, w = console.warn; console.error = () => {}; console.warn = () => {}; return () => { console.error = e; console.warn = w; }; };

async function callOutcome(fence, run, args = {}, key = undefined, tool = 'record') {
  let ran = 0;
  const restore = quiet();
  try {
    const out = await fence.call(run, tool, args, key, () => { ran++; return 'ran'; });
    return { out, ran };
  } catch (e) { return { thrown: e, ran }; } finally { restore(); }
}

for (const [label, lease] of [
  ['token() throws a string', { token() { throw 'lost'; } }],
  ['token() throws undefined', { token() { throw undefined; } }],
  ['token() returns a number', { token() { return 42; } }],
  ['token() returns an object', { token() { return { toString: () => 'x' }; } }],
  ['token() returns a Promise of the text', null],
  ['lease is a revoked Proxy', (() => { const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy; })()],
  ['lease is a Proxy whose token getter throws', new Proxy({}, { get() { throw new Error('boom'); } })],
  ['lease is null', null],
  ['lease is a number', 7],
]) {
  test(`junk lease: ${label}: the body never runs and nothing escapes as a non-refusal crash`, async () => {
    const fence = freshFence();
    const key = session();
    const run = label.includes('Promise') ? { token: async () => tokenFor(key, 1n) } : lease;
    const r = await callOutcome(fence, run);
    assert.equal(r.ran, 0);
    if (r.out) assert.equal(r.out.kind, 'refused', JSON.stringify(r.out));
  });
}

test('lost lease via LeaseLostError is refused as lease_lost and the body does not run', async () => {
  const fence = freshFence();
  const t = tokenFor(session(), 1n);
  const r = await callOutcome(fence, { token() { throw new LeaseLostError(t, 'renewal failed'); } });
  assert.equal(r.ran, 0);
  assert.equal(r.out.kind, 'refused');
  assert.equal(r.out.stop.refusal.reason, 'lease_lost');
});

test('a forged token with a huge fence is refused and does not raise the mark (the genuine run still runs)', async () => {
  const fence = freshFence();
  const key = session();
  const real = tokenFor(key, 1n);
  const forged = tokenFor(key, 999n).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
  const f = await callOutcome(fence, forged);
  assert.equal(f.ran, 0);
  assert.equal(f.out.kind, 'refused');
  const g = await callOutcome(fence, real);
  assert.equal(g.ran, 1, 'genuine run refused after a forged attempt');
});

for (const k of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
  test(`idempotency key ${k}: a first call runs its own body and returns its own result`, async () => {
    const fence = freshFence();
    const t = tokenFor(session(), 1n);
    const r = await callOutcome(fence, t, {}, k);
    assert.equal(r.ran, 1, r.out?.kind);
    assert.equal(r.out.kind, 'ran');
    const again = await callOutcome(fence, t, {}, k);
    assert.equal(again.ran, 0);
    assert.equal(again.out.kind, 'replayed');
    assert.equal(again.out.value, 'ran');
  });
}

for (const [label, key] of [['empty', ''], ['201 chars', 'x'.repeat(201)], ['a number', 5], ['an object', { toString: () => 'k' }], ['200 astral chars (400 UTF-16 units)', '😀'.repeat(200)]]) {
  test(`idempotency key ${label}: malformed, nothing runs`, async () => {
    const fence = freshFence();
    const r = await callOutcome(fence, tokenFor(session(), 1n), {}, key);
    assert.equal(r.ran, 0, r.out?.kind);
    assert.equal(r.out?.kind, 'refused');
    assert.equal(r.out.stop.refusal.reason, 'malformed');
  });
}

test('a body that throws a non-Error (undefined) with a key frees the key: the retry runs', async () => {
  const fence = freshFence();
  const t = tokenFor(session(), 1n);
  let runs = 0;
  await assert.rejects(fence.call(t, 'record', {}, 'k1', () => { runs++; throw undefined; }).then(() => { throw new Error('resolved'); }), (e) => e === undefined);
  const out = await fence.call(t, 'record', {}, 'k1', () => { runs++; return 'second'; });
  assert.equal(out.kind, 'ran');
  assert.equal(runs, 2);
});

test('a body that returns a rejected thenable of null frees the key', async () => {
  const fence = freshFence();
  const t = tokenFor(session(), 1n);
  await fence.call(t, 'record', {}, 'k1', () => ({ then(_r, j) { j(null); } })).then(() => { throw new Error('resolved'); }, (e) => assert.equal(e, null));
  const out = await fence.call(t, 'record', {}, 'k1', () => 'second');
  assert.equal(out.kind, 'ran');
});

test('two parallel calls with the same key: the body runs once', async () => {
  const fence = freshFence();
  const t = tokenFor(session(), 1n);
  let runs = 0;
  const body = async () => { runs++; await new Promise((r) => setTimeout(r, 30)); return 'v'; };
  const outs = await Promise.all([fence.call(t, 'record', {}, 'k', body), fence.call(t, 'record', {}, 'k', body)]);
  assert.equal(runs, 1);
  assert.deepEqual(outs.map((o) => o.kind).sort(), ['ran', 'refused']);
});

test('scope that throws: the body does not run', async () => {
  const fence = new AgentToolFence({ guard: new InMemoryFenceGuard({ verifier: verifier() }), scope: () => { throw new TypeError('args.text.startsWith is not a function'); } });
  const r = await callOutcome(fence, tokenFor(session(), 1n), { text: 5 });
  assert.equal(r.ran, 0);
});

for (const [label, answer, says] of [
  ['a Promise of false (an async scope)', () => Promise.resolve(false), /returned a Promise.*must be synchronous and return a boolean/],
  ['a rejected Promise', () => Promise.reject(new Error('async scope failed')), /returned a Promise/],
  ['the string "false"', () => 'false', /returned string.*must be synchronous and return a boolean/],
  ['1', () => 1, /returned number/],
  ['an object', () => ({}), /returned object/],
  ['undefined', () => undefined, /returned undefined/],
]) {
  test(`scope returning ${label} instead of a boolean true: the body does not run, and the refusal says what a scope must return`, async () => {
    const fence = new AgentToolFence({ guard: new InMemoryFenceGuard({ verifier: verifier() }), scope: answer });
    const r = await callOutcome(fence, tokenFor(session(), 1n));
    assert.equal(r.ran, 0, `scope returned ${label} and the body ran`);
    assert.equal(r.out.stop.refusal.reason, 'out_of_scope');
    assert.match(r.out.stop.refusal.message, says);
  });
}

test('a scope answering false is refused as out of scope, and true runs the body', async () => {
  const key = session();
  const no = await callOutcome(new AgentToolFence({ guard: new InMemoryFenceGuard({ verifier: verifier() }), scope: () => false }), tokenFor(key, 1n));
  assert.equal(no.out.stop.refusal.reason, 'out_of_scope');
  assert.doesNotMatch(no.out.stop.refusal.message, /synchronous/);
  const yes = await callOutcome(new AgentToolFence({ guard: new InMemoryFenceGuard({ verifier: verifier() }), scope: () => true }), tokenFor(key, 1n));
  assert.equal(yes.ran, 1);
});

test('a guard given a scope that answers a Promise refuses, whoever calls it (InMemoryFenceGuard.admit)', async () => {
  const g = new InMemoryFenceGuard({ verifier: verifier() });
  const key = session();
  await assert.rejects(g.admit(tokenFor(key, 1n), async () => false), /must be synchronous and return a boolean/);
  assert.equal(g.highWaterMark(key.accountId, key.sessionId), undefined, 'nothing was admitted');
});

for (const [label, key] of [['empty', ''], ['201 characters', 'k'.repeat(201)]]) {
  test(`a malformed idempotency key (${label}) of a valid token is refused in the MCP words, not as an unverifiable token`, async () => {
    const fence = freshFence();
    const err = await fence.invoke(tokenFor(session(), 1n), 'record', {}, key, () => 1).then(() => undefined, (e) => e);
    assert.ok(err instanceof RunStoppedError);
    assert.equal(err.stop.refusal.reason, 'malformed');
    assert.match(err.stop.refusal.message, /the idempotency key .*must be a string of 1 to 200 characters/);
    assert.doesNotMatch(err.message, /token could not be verified/, 'the token was valid; the idempotency key was not');
    assert.match(err.message, /idempotency key .*must be a string of 1 to 200 characters.*NOT run/);
  });
}

test('superseded: after startRun(newer) the older run is refused, and refused again without asking the guard', async () => {
  let asked = 0;
  const inner = new InMemoryFenceGuard({ verifier: verifier() });
  const guard = { admit: (...a) => { asked++; return inner.admit(...a); } };
  const fence = new AgentToolFence({ guard });
  const key = session();
  const [old, nw] = [tokenFor(key, 1n), tokenFor(key, 2n)];
  await fence.startRun(nw);
  const a = await callOutcome(fence, old);
  const before = asked;
  const b = await callOutcome(fence, old);
  assert.equal(a.ran + b.ran, 0);
  assert.equal(a.out.stop.refusal.reason, 'superseded');
  assert.equal(asked, before, 'guard asked again');
});

test('an execute that resolves after the lease is lost: the result comes back, and the next call is refused as lease_lost', async () => {
  const fence = freshFence();
  const t = tokenFor(session(), 1n);
  let lost = false;
  const lease = { token() { if (lost) throw new LeaseLostError(t, 'gone'); return t; } };
  const out = await fence.call(lease, 'record', {}, undefined, async () => { await new Promise((r) => setTimeout(r, 10)); lost = true; return 'late'; });
  assert.equal(out.kind, 'ran');
  const next = await callOutcome(fence, lease);
  assert.equal(next.ran, 0);
  assert.equal(next.out.stop.refusal.reason, 'lease_lost');
});

test('invoke with endRunOnRefusal throws RunStoppedError whose message says the tool was NOT run and to stop', async () => {
  const fence = freshFence();
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const restore = quiet();
  try {
    await assert.rejects(fence.invoke(tokenFor(key, 1n), 'record', {}, undefined, () => 'x'), (e) => e instanceof RunStoppedError && /NOT run/.test(e.message) && /stop/i.test(e.message));
  } finally { restore(); }
});

test('an expired token is refused', async () => {
  const fence = freshFence();
  // a token whose window ended: build one with the fixture then wait is too slow; use a token 10 min old
  const { createHmac, randomUUID } = await import('node:crypto');
  const { formatToken, signedContent } = await import('../dist/index.js');
  const { hmacVerifyKey } = await import('../fixtures/agent-tokens.mjs');
  const secret = Buffer.from(hmacVerifyKey.split(':').pop(), 'base64url');
  const now = BigInt(Date.now());
  const t = { key: session(), fence: 1n, runId: randomUUID(), signature: { validFrom: now - 700_000n, validUntil: now - 60_000n, keyId: hmacVerifyKey.split(':')[3], value: '' } };
  const text = formatToken({ ...t, signature: { ...t.signature, value: createHmac('sha256', secret).update(signedContent(t)).digest('base64url') } });
  const r = await callOutcome(fence, text);
  assert.equal(r.ran, 0);
  assert.equal(r.out.stop.refusal.reason, 'expired');
});

// fenceTool: hostile _meta
const guard = () => new InMemoryFenceGuard({ verifier: verifier() });
for (const [label, meta] of [
  ['token as an array', (t) => ({ 'io.leasehold/token': [t] })],
  ['token as a boxed String', (t) => ({ 'io.leasehold/token': new String(t) })],
  ['token as an object with toString', (t) => ({ 'io.leasehold/token': { toString: () => t } })],
  ['_meta a Proxy that throws', () => new Proxy({}, { get() { throw new Error('boom'); }, has() { throw new Error('boom'); } })],
  ['idempotency key a number', (t) => ({ 'io.leasehold/token': t, 'io.leasehold/idempotency-key': 5 })],
  ['idempotency key 201 chars', (t) => ({ 'io.leasehold/token': t, 'io.leasehold/idempotency-key': 'x'.repeat(201) })],
]) {
  test(`fenceTool: hostile _meta (${label}): the handler does not run, and the answer is a refusal`, async () => {
    let ran = 0;
    const h = fenceTool({ guard: guard() }, async () => { ran++; return { content: [{ type: 'text', text: 'ok' }] }; });
    const restore = quiet();
    let res;
    try { res = await h({}, { _meta: meta(tokenFor(session(), 1n)) }); } finally { restore(); }
    assert.equal(ran, 0, label);
    assert.equal(res.isError, true);
  });
}

test('fenceTool: a scope returning a Promise of false (an async scope) does not admit the call', async () => {
  let ran = 0;
  const h = fenceTool({ guard: guard(), scope: async () => false }, async () => { ran++; return { content: [{ type: 'text', text: 'ok' }] }; });
  const restore = quiet();
  let res;
  try { res = await h({}, { _meta: { 'io.leasehold/token': tokenFor(session(), 1n) } }); } finally { restore(); }
  assert.equal(ran, 0, 'an async scope that answers false let the handler run');
  assert.equal(res.isError, true);
  assert.match(JSON.stringify(res), /must be synchronous and return a boolean/);
});
