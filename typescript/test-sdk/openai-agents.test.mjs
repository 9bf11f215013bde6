// The OpenAI Agents SDK (@openai/agents) fenced in process: the agent-framework contract with a
// scripted Model, the ways a call could go around the fence, and MCP tools carrying the token in
// _meta through the SDK's toolMetaResolver to the Node server fence. No network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, Runner, invokeFunctionTool, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { RunStoppedError } from '../dist/index.js';
import {
  UnfencedToolError, fenceAgentTools, idempotencyKeyArgument, isFencedAgentTool, requireFencedTools,
} from '../dist/openai-agents.js';
import { agentFrameworkContract } from '../dist/testkit.js';
import { freshFence, session, tokenFor } from '../fixtures/agent-tokens.mjs';
import { ScriptedModel, toolOutputs } from '../fixtures/scripted-openai-model.mjs';

setTracingDisabled(true);

function recordTool(effects) {
  return tool({
    name: 'record',
    description: 'Records a text',
    parameters: z.object({ text: z.string(), idempotencyKey: z.string().nullable() }),
    execute: async ({ text }) => { effects.push(text); return `recorded ${text}`; },
  });
}

function agentWith(fence, effects, options = {}) {
  const model = new ScriptedModel();
  const agent = new Agent({
    name: 'recorder', instructions: 'Record what you are told.', model,
    tools: fenceAgentTools(fence, [recordTool(effects)], { idempotencyKey: idempotencyKeyArgument('idempotencyKey'), ...options }),
  });
  return { model, agent, runner: new Runner() };
}

agentFrameworkContract({
  name: 'OpenAI Agents SDK',
  harness: ({ fence }) => {
    const effects = [];
    const { model, agent, runner } = agentWith(fence, effects);
    return {
      async call(run, text, idempotencyKey) {
        model.next = [{ name: 'record', args: { text, idempotencyKey: idempotencyKey ?? null } }];
        return toolOutputs(await runner.run(agent, `record ${text}`, { context: { lease: run } }))[0];
      },
      effects: () => effects,
    };
  },
});

test('parallel calls of a superseded run: none runs, and the run ends', async () => {
  const fence = freshFence();
  const effects = [];
  const { model, agent, runner } = agentWith(fence, effects);
  const key = session();
  const [desktop, browser] = [tokenFor(key, 1n), tokenFor(key, 2n)];
  await fence.startRun(browser);
  model.next = [1, 2, 3].map((i) => ({ name: 'record', args: { text: `late ${i}`, idempotencyKey: null } }));
  const failure = await runner.run(agent, 'go', { context: { lease: desktop } }).then(() => undefined, (e) => e);
  assert.ok(failure, 'the run ended with an error');
  const stop = failure instanceof RunStoppedError ? failure : failure.error ?? failure.cause;
  assert.ok(stop instanceof RunStoppedError, String(failure));
  assert.equal(stop.stop.refusal.reason, 'superseded');
  assert.match(stop.message, /was NOT run/);
  assert.deepEqual(effects, []);
});

test('with endRunOnRefusal false the model reads the refusal as the tool output, and the tool did not run', async () => {
  const fence = freshFence();
  const effects = [];
  const { model, agent, runner } = agentWith(fence, effects, { endRunOnRefusal: false });
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  model.next = [{ name: 'record', args: { text: 'late', idempotencyKey: null } }];
  const result = await runner.run(agent, 'go', { context: { lease: tokenFor(key, 1n) } });
  const [read] = toolOutputs(result);
  assert.match(read, /^Tool call refused by Leasehold: a newer run of this session \(fence 2\) has taken over/);
  assert.deepEqual(effects, []);
});

test("calling the fenced tool's invoke directly, or through the SDK's invokeFunctionTool, is fenced too", async () => {
  const fence = freshFence();
  const effects = [];
  const [fenced] = fenceAgentTools(fence, [recordTool(effects)]);
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const context = { context: { lease: tokenFor(key, 1n) } };
  await assert.rejects(fenced.invoke(context, JSON.stringify({ text: 'direct', idempotencyKey: null })), RunStoppedError);
  await assert.rejects(invokeFunctionTool({ tool: fenced, runContext: context, input: JSON.stringify({ text: 'sdk', idempotencyKey: null }) }), RunStoppedError);
  assert.equal(await fenced.invoke(context, '{not json'), 'Tool call refused by Leasehold: the arguments of "record" are not one JSON value. The tool "record" was NOT run.');
  assert.throws(() => { fenced.invoke = async () => 'bypass'; }, TypeError, 'invoke cannot be replaced');
  fenced.inputGuardrails = []; // no guardrail is part of the fence
  await assert.rejects(fenced.invoke(context, JSON.stringify({ text: 'no guardrails', idempotencyKey: null })), RunStoppedError);
  assert.deepEqual(effects, []);
});

test('a tool added to the agent after fencing never starts under requireFencedTools', async () => {
  const fence = freshFence();
  const effects = [];
  const { model, agent, runner } = agentWith(fence, effects);
  requireFencedTools(runner);
  const sneaked = tool({ name: 'sneaked', description: 'unfenced', parameters: z.object({ text: z.string() }),
    execute: async ({ text }) => { effects.push(`sneaked ${text}`); return 'ok'; } });
  agent.tools.push(sneaked);
  assert.ok(isFencedAgentTool(agent.tools[0]) && !isFencedAgentTool(sneaked));
  const run = tokenFor(session(), 1n);
  model.next = [{ name: 'sneaked', args: { text: 'x' } }];
  const failure = await runner.run(agent, 'go', { context: { lease: run } }).then(() => undefined, (e) => e);
  assert.ok(failure instanceof UnfencedToolError || failure?.error instanceof UnfencedToolError || failure?.cause instanceof UnfencedToolError, String(failure));
  model.next = [{ name: 'record', args: { text: 'fenced', idempotencyKey: null } }];
  await runner.run(agent, 'go', { context: { lease: run } });
  assert.deepEqual(effects, ['fenced']);
});

test('a call that carries no run is not run', async () => {
  const fence = freshFence();
  const effects = [];
  const { model, agent, runner } = agentWith(fence, effects);
  model.next = [{ name: 'record', args: { text: 'anonymous', idempotencyKey: null } }];
  await assert.rejects(runner.run(agent, 'go', { context: {} }), /carries no run/);
  assert.deepEqual(effects, []);
});

test('fencing refuses a tool that does not run through invoke', () => {
  assert.throws(() => fenceAgentTools(freshFence(), [{ type: 'hosted_tool', name: 'web_search' }]), /only function tools/);
});
