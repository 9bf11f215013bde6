// Ways around the fence of @leasehold/fencing/ai-sdk on ai 7 (Node 22), with the SDK's mock model: odd tool
// names, inherited and getter executes, parallel calls on a lost lease, streamText, hostile JSON. No network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import * as ai from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { LeaseLostError, idempotencyKeyArgument } from '../dist/index.js';
import { fenceAiSdkTools, runStopOf, runStopped } from '../dist/ai-sdk.js';
import { freshFence, session, tokenFor } from '../fixtures/agent-tokens.mjs';
import { scriptedModel } from '../fixtures/scripted-ai-model.mjs';

const { generateText, streamText, stepCountIs, tool, jsonSchema } = ai;
const recordTool = (effects, extra = {}) => tool({
  description: 'Records a text', inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }) => { effects.push(text); return `recorded ${text}`; }, ...extra,
});
async function gen(model, tools, calls, extra = {}) {
  model.next = calls;
  return generateText({ model, tools, prompt: 'go', stopWhen: [stepCountIs(5), runStopped], ...extra });
}
const errors = (result) => result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error').map((p) => p.error);

for (const name of ['Record', 'record\u200b', 'ｒｅｃｏｒｄ', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
  test(`ai: a model emitting tool name ${JSON.stringify(name)} runs no tool`, async () => {
    const fence = freshFence();
    const effects = [];
    const key = session();
    await fence.startRun(tokenFor(key, 2n));
    const model = scriptedModel(MockLanguageModelV4);
    await gen(model, fenceAiSdkTools(fence, { record: recordTool(effects) }, tokenFor(key, 1n)), [{ name, args: { text: 'x' } }]).catch(() => {});
    assert.deepEqual(effects, []);
  });
}

test('ai: a tool whose execute is inherited (a class instance) is fenced, not passed on unfenced', async () => {
  const fence = freshFence();
  const effects = [];
  class RecordTool {
    description = 'Records a text';
    inputSchema = z.object({ text: z.string() });
    async execute({ text }) { effects.push(text); return 'ok'; }
  }
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const model = scriptedModel(MockLanguageModelV4);
  const tools = fenceAiSdkTools(fence, { record: new RecordTool() }, tokenFor(key, 1n));
  await gen(model, tools, [{ name: 'record', args: { text: 'superseded' } }]).catch(() => {});
  assert.deepEqual(effects, [], 'a superseded run reached an inherited execute');
});

test('ai: a tool whose execute is a getter is fenced at call time (a getter cannot swap in an unfenced execute)', async () => {
  const fence = freshFence();
  const effects = [];
  const base = recordTool(effects);
  const fn = base.execute;
  const t = { description: base.description, inputSchema: base.inputSchema, get execute() { return fn; } };
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const model = scriptedModel(MockLanguageModelV4);
  await gen(model, fenceAiSdkTools(fence, { record: t }, tokenFor(key, 1n)), [{ name: 'record', args: { text: 'superseded' } }]).catch(() => {});
  assert.deepEqual(effects, []);
});

test('ai: parallel calls when the lease is lost after the first call: no later call runs, the loop stops', async () => {
  const fence = freshFence();
  const effects = [];
  const t = tokenFor(session(), 1n);
  let calls = 0;
  const lease = { token() { if (++calls > 1) throw new LeaseLostError(t, 'gone'); return t; } };
  const model = scriptedModel(MockLanguageModelV4);
  const result = await gen(model, fenceAiSdkTools(fence, { record: recordTool(effects) }, lease), [1, 2, 3].map((i) => ({ name: 'record', args: { text: `p${i}` } })));
  assert.ok(effects.length <= 1, JSON.stringify(effects));
  assert.equal(runStopOf(result.steps)?.refusal.reason, 'lease_lost');
  assert.equal(result.steps.length, 1, 'the model was asked again after the stop');
  assert.match(String(errors(result)[0]?.message ?? errors(result)[0]), /NOT run/);
});

test('ai: streamText: a superseded run\'s call never runs and the loop stops', async () => {
  const fence = freshFence();
  const effects = [];
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const model = new MockLanguageModelV4({
    doStream: async () => ({ stream: ai.simulateReadableStream({ chunks: [
      { type: 'tool-call', toolCallId: 'c1', toolName: 'record', input: JSON.stringify({ text: 'late' }) },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } } },
    ] }) }),
  });
  const r = streamText({ model, tools: fenceAiSdkTools(fence, { record: recordTool(effects) }, tokenFor(key, 1n)), prompt: 'go', stopWhen: [stepCountIs(5), runStopped] });
  await r.consumeStream();
  const steps = await r.steps;
  assert.deepEqual(effects, []);
  assert.equal(runStopOf(steps)?.refusal.reason, 'superseded');
  assert.equal(steps.length, 1);
});

test('ai: hostile JSON input (__proto__ carrying the idempotency key) with a plain JSON schema: no replay of another call', async () => {
  const fence = freshFence();
  const effects = [];
  const t = tool({ description: 'r', inputSchema: jsonSchema({ type: 'object', properties: { text: { type: 'string' } } }),
    execute: async ({ text }) => { effects.push(text); return `recorded ${text}`; } });
  const lease = tokenFor(session(), 1n);
  const model = scriptedModel(MockLanguageModelV4);
  const tools = fenceAiSdkTools(fence, { record: t }, lease, { idempotencyKey: idempotencyKeyArgument('idempotencyKey') });
  await gen(model, tools, [{ name: 'record', args: { text: 'a', idempotencyKey: 'k' } }]);
  model.next = [];
  const m2 = scriptedModel(MockLanguageModelV4);
  const orig = m2.doGenerate;
  await generateText({ model: new MockLanguageModelV4({ doGenerate: async (o) => (o.prompt.at(-1)?.role === 'tool' ? { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }, warnings: [] }
    : { content: [{ type: 'tool-call', toolCallId: 'x1', toolName: 'record', input: '{"text":"b","__proto__":{"idempotencyKey":"k"}}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }, warnings: [] }) }),
    tools, prompt: 'go', stopWhen: [stepCountIs(3), runStopped] }).catch(() => {});
  void orig;
  assert.ok(!effects.includes('b') || effects.length === 2, JSON.stringify(effects));
  assert.equal(effects[0], 'a');
});

test('ai: a streaming tool of a run whose lease is lost mid-stream is not allowed to go on yielding (informational)', async () => {
  const fence = freshFence();
  const t = tokenFor(session(), 1n);
  let lost = false;
  const yielded = [];
  const progress = tool({ description: 'p', inputSchema: z.object({ text: z.string() }),
    async *execute({ text }) { yielded.push('start'); lost = true; await new Promise((r) => setTimeout(r, 5)); yielded.push('after loss'); yield text; } });
  const lease = { token() { if (lost) throw new LeaseLostError(t, 'gone'); return t; } };
  const model = scriptedModel(MockLanguageModelV4);
  await gen(model, fenceAiSdkTools(fence, { progress }, lease), [{ name: 'progress', args: { text: 'x' } }]);
  assert.deepEqual(yielded, ['start', 'after loss']); // documented: admission is at the start only
});

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
/** A streamed turn whose one call of `record` streams its input first (so that the input hooks run). */
const streamedCall = (text) => [
  { type: 'tool-input-start', id: 'c1', toolName: 'record' },
  { type: 'tool-input-delta', id: 'c1', delta: JSON.stringify({ text }) },
  { type: 'tool-input-end', id: 'c1' },
  { type: 'tool-call', toolCallId: 'c1', toolName: 'record', input: JSON.stringify({ text }) },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
];
const doneTurn = [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage }];
/** A streamed model: the turns in order, then "done". */
const streamedModel = (...turns) => new MockLanguageModelV4({ doStream: async () => ({ stream: ai.simulateReadableStream({ chunks: turns.shift() ?? doneTurn }) }) });
/** `record` with the three input hooks, each noting that it ran. */
const hookedRecord = (effects) => recordTool(effects, {
  onInputStart: () => { effects.push('start'); },
  onInputDelta: () => { effects.push('delta'); },
  onInputAvailable: () => { effects.push('available'); },
});

test('ai: streamText: the input hooks (onInputStart, onInputDelta, onInputAvailable) of a superseded run\'s call do not run', async () => {
  const fence = freshFence();
  const effects = [];
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const r = streamText({ model: streamedModel(streamedCall('late')), tools: fenceAiSdkTools(fence, { record: hookedRecord(effects) }, tokenFor(key, 1n)),
    prompt: 'go', stopWhen: [stepCountIs(5), runStopped] });
  await r.consumeStream();
  assert.deepEqual(effects, []);
  assert.equal(runStopOf(await r.steps)?.refusal.reason, 'superseded');
});

test('ai: streamText: the input hooks of the current run\'s call run', async () => {
  const effects = [];
  const r = streamText({ model: streamedModel(streamedCall('now')), tools: fenceAiSdkTools(freshFence(), { record: hookedRecord(effects) }, tokenFor(session(), 1n)),
    prompt: 'go', stopWhen: [stepCountIs(5), runStopped] });
  await r.consumeStream();
  assert.deepEqual(effects, ['start', 'delta', 'available', 'now']);
});
