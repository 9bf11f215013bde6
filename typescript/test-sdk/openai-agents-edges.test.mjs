// Ways around the fence of @leasehold/fencing/openai-agents on @openai/agents 0.20 (Node 22): odd tool names,
// approvals resumed after a takeover, copies of fenced tools, junk contexts, streamed runs, and what the
// errors say. Scripted models only. Agents-as-tools and handoffs: fixtures/openai-agents-nesting-suite.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import * as sdk from '@openai/agents';
import { LeaseLostError } from '../dist/index.js';
import { UnfencedToolError, fenceAgentTools, isFencedAgentTool, leaseholdToolMeta, runStopOf } from '../dist/openai-agents.js';
import { freshFence, session, tokenFor } from '../fixtures/agent-tokens.mjs';

const { Agent, Runner, setTracingDisabled, tool, Usage } = sdk;
setTracingDisabled(true);

/** A model that answers each getResponse with the next scripted turn (a list of calls), then "done". */
class QueueModel {
  turns = [];
  #ids = 0;
  constructor(turns = []) { this.turns = turns; }
  async getResponse() {
    const t = this.turns.shift();
    if (!t) return { usage: new Usage(), output: [{ type: 'message', id: `m${++this.#ids}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }] };
    const calls = typeof t === 'function' ? await t() : t;
    return { usage: new Usage(), output: calls.map(({ name, args, raw }) => { const id = ++this.#ids; return { type: 'function_call', id: `fc_${id}`, callId: `call_${id}_${Math.random()}`, name, arguments: raw ?? JSON.stringify(args), status: 'completed' }; }) };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse() { throw new Error('no streaming'); }
}

const recordTool = (effects, name = 'record', extra = {}) => tool({
  name, description: 'Records a text', parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => { effects.push(`${name}:${text}`); return `recorded ${text}`; }, ...extra,
});
const settle = (p) => p.then((v) => ({ v }), (e) => ({ e }));
const quietly = async (f) => { const e = console.error; console.error = () => {}; try { return await f(); } finally { console.error = e; } };

for (const name of ['Record', 'RECORD', 'record\u200b', 'ｒｅｃｏｒｄ', 'record ']) {
  test(`a model emitting tool name ${JSON.stringify(name)}: no tool runs`, async () => {
    const fence = freshFence();
    const effects = [];
    const key = session();
    await fence.startRun(tokenFor(key, 2n));
    const agent = new Agent({ name: 'a', instructions: 'x', model: new QueueModel([[{ name, args: { text: 'x' } }]]),
      tools: [...fenceAgentTools(fence, [recordTool(effects)])] });
    await settle(new Runner().run(agent, 'go', { context: { lease: tokenFor(key, 1n) } }));
    assert.deepEqual(effects, []);
  });
}

/** A run whose one call waits for approval: the fence, the effects, the key, the agent, its runner and the first result. */
async function awaitingApproval() {
  const fence = freshFence();
  const effects = [];
  const key = session();
  const model = new QueueModel([[{ name: 'record', args: { text: 'needs ok' } }]]);
  const agent = new Agent({ name: 'a', instructions: 'x', model, tools: fenceAgentTools(fence, [recordTool(effects, 'record', { needsApproval: true })]) });
  const runner = new Runner();
  const first = await runner.run(agent, 'go', { context: { lease: tokenFor(key, 1n) } });
  assert.equal(first.interruptions.length, 1);
  return { fence, effects, key, agent, runner, first };
}

test('needsApproval: a call approved after a newer run started is refused on resume', async () => {
  const { fence, effects, key, agent, runner, first } = await awaitingApproval();
  await fence.startRun(tokenFor(key, 2n));
  first.state.approve(first.interruptions[0]);
  const r = await settle(runner.run(agent, first.state));
  assert.deepEqual(effects, []);
  assert.equal(runStopOf(r.e)?.refusal.reason, 'superseded', String(r.e ?? 'resolved'));
});

test('needsApproval: a serialized state resumed after a newer run started is refused (the token in the state is still checked)', async () => {
  const { fence, effects, key, agent, runner, first } = await awaitingApproval();
  const state = await sdk.RunState.fromString(agent, first.state.toString());
  await fence.startRun(tokenFor(key, 2n));
  state.approve(state.getInterruptions()[0]);
  await settle(runner.run(agent, state));
  assert.deepEqual(effects, []);
});

test('the fenced copy\'s invoke cannot be replaced, not even by defineProperty', () => {
  const fenced = fenceAgentTools(freshFence(), [recordTool([])])[0];
  assert.throws(() => { fenced.invoke = async () => 'bypass'; }, TypeError);
  assert.throws(() => Object.defineProperty(fenced, 'invoke', { value: async () => 'bypass' }), TypeError);
});

test('a copy of a fenced tool made by spreading keeps the fence', async () => {
  const fence = freshFence();
  const effects = [];
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const fenced = fenceAgentTools(fence, [recordTool(effects)])[0];
  const copy = { ...fenced };
  assert.equal(typeof copy.invoke, 'function', 'spreading a fenced tool drops invoke');
  await settle(Promise.resolve().then(() => copy.invoke(new sdk.RunContext({ lease: tokenFor(key, 1n) }), '{"text":"x"}')));
  assert.deepEqual(effects, []);
});

for (const [label, context] of [
  ['a Proxy context that throws', new Proxy({}, { get() { throw new Error('boom'); } })],
  ['lease a number', { lease: 5 }],
  ['lease whose token() throws a string', { lease: { token() { throw 'gone'; } } }],
  ['lease whose token() returns an object', { lease: { token() { return {}; } } }],
]) {
  test(`a run with ${label}: the tool does not run and the run ends`, async () => {
    const effects = [];
    const agent = new Agent({ name: 'a', instructions: 'x', model: new QueueModel([[{ name: 'record', args: { text: 'x' } }]]), tools: fenceAgentTools(freshFence(), [recordTool(effects)]) });
    const r = await settle(new Runner().run(agent, 'go', { context }));
    assert.deepEqual(effects, []);
    assert.ok(r.e, 'the run resolved');
  });
}

test('a lost lease (LeaseLostError) ends the run with lease_lost, the tool not run', async () => {
  const effects = [];
  const t = tokenFor(session(), 1n);
  const agent = new Agent({ name: 'a', instructions: 'x', model: new QueueModel([[{ name: 'record', args: { text: 'x' } }]]), tools: fenceAgentTools(freshFence(), [recordTool(effects)]) });
  const r = await settle(new Runner().run(agent, 'go', { context: { lease: { token() { throw new LeaseLostError(t, 'renewal failed'); } } } }));
  assert.deepEqual(effects, []);
  assert.equal(runStopOf(r.e)?.refusal.reason, 'lease_lost');
});

test('arguments that are not JSON, or hostile JSON (__proto__), run nothing unfenced', async () => {
  const fence = freshFence();
  const effects = [];
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const agent = new Agent({ name: 'a', instructions: 'x', model: new QueueModel([[{ name: 'record', raw: '{"text":' }], [{ name: 'record', raw: '{"__proto__":{"text":"p"},"text":"q"}' }]]), tools: fenceAgentTools(fence, [recordTool(effects)]) });
  await settle(new Runner().run(agent, 'go', { context: { lease: tokenFor(key, 1n) } }));
  assert.deepEqual(effects, []);
  assert.ok(isFencedAgentTool(agent.tools[0]));
});

/** QueueModel that also streams: each turn ends in one response_done event. */
class StreamQueueModel extends QueueModel {
  async *getStreamedResponse(request) {
    const r = await this.getResponse(request);
    yield { type: 'response_done', response: { id: `resp_${Math.random()}`, usage: { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 }, output: r.output } };
  }
}

test('streamed run (stream: true): a superseded run\'s parallel calls never run and the stream ends with the stop', async () => {
  const fence = freshFence();
  const effects = [];
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const agent = new Agent({ name: 'a', instructions: 'x', model: new StreamQueueModel([[1, 2].map((i) => ({ name: 'record', args: { text: `s${i}` } }))]), tools: fenceAgentTools(fence, [recordTool(effects)]) });
  const r = await settle((async () => { const s = await new Runner().run(agent, 'go', { stream: true, context: { lease: tokenFor(key, 1n) } }); for await (const _ of s) { /* drain */ } await s.completed; if (s.error) throw s.error; return s; })());
  assert.deepEqual(effects, []);
  assert.ok(r.e, 'the streamed run did not fail');
  assert.equal(runStopOf(r.e)?.refusal.reason, 'superseded', String(r.e));
});

test('retry of a finished keyed call after the run was superseded is refused, not replayed', async () => {
  const fence = freshFence();
  const key = session();
  const old = tokenFor(key, 1n);
  let runs = 0;
  const first = await fence.call(old, 'record', {}, 'k', () => { runs++; return 'secret result'; });
  assert.equal(first.kind, 'ran');
  await fence.startRun(tokenFor(key, 2n));
  const again = await fence.call(old, 'record', {}, 'k', () => { runs++; return 'again'; });
  assert.equal(again.kind, 'refused');
  assert.equal(runs, 1);
});

test('messages: leaseholdToolMeta with no lease in the context says where the lease goes', async () => {
  const meta = leaseholdToolMeta();
  const err = await quietly(async () => { try { await meta({ runContext: new sdk.RunContext({}), serverName: 's', toolName: 't', arguments: {} }); } catch (e) { return e; } });
  assert.ok(err, 'no error');
  assert.match(err.message + ' ' + (err.stop?.refusal.message ?? ''), /context\.lease|runOf|no run/i, `the message gives no repair: ${err.message} / ${err.stop?.refusal.message}`);
});

test('messages: UnfencedToolError and fencing a hosted tool say how to repair', () => {
  assert.match(new UnfencedToolError('x').message, /fenceAgentTools/);
  assert.throws(() => fenceAgentTools(freshFence(), [{ type: 'hosted_tool', name: 'web_search' }]), /only function tools/);
});
