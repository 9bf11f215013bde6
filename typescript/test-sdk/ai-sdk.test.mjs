// The Vercel AI SDK (ai) fenced in process: the agent-framework contract with the SDK's own mock
// model (MockLanguageModelV4 from ai/test), and the ways a call could go around the fence. No network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { RunStoppedError, idempotencyKeyArgument } from '../dist/index.js';
import { fenceAiSdkTools, isFencedAiSdkTool, runStopOf, runStopped } from '../dist/ai-sdk.js';
import { agentFrameworkContract } from '../dist/testkit.js';
import { freshFence, session, tokenFor } from '../fixtures/agent-tokens.mjs';
import { scriptedModel } from '../fixtures/scripted-ai-model.mjs';

function recordTool(effects) {
  return tool({
    description: 'Records a text',
    inputSchema: z.object({ text: z.string(), idempotencyKey: z.string().optional() }),
    execute: async ({ text }) => { effects.push(text); return `recorded ${text}`; },
  });
}

/** One generateText call of a run: the step's tool outputs, or the run's stop thrown. */
async function turn(model, tools, calls) {
  model.next = calls;
  const result = await generateText({ model, tools, prompt: 'go', stopWhen: [isStepCount(5), runStopped] });
  const stop = runStopOf(result.steps);
  if (stop !== undefined) throw new RunStoppedError(stop);
  return result;
}

const outputs = (result) => result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-result').map((p) => p.output);

// region contract
agentFrameworkContract({
  name: 'Vercel AI SDK',
  harness: ({ fence }) => {
    const effects = [];
    const model = scriptedModel(); // MockLanguageModelV4 from ai/test, told which call to make
    return {
      async call(run, text, idempotencyKey) {
        const tools = fenceAiSdkTools(fence, { record: recordTool(effects) }, run,
          { idempotencyKey: idempotencyKeyArgument('idempotencyKey') });
        const args = idempotencyKey === undefined ? { text } : { text, idempotencyKey };
        return outputs(await turn(model, tools, [{ name: 'record', args }]))[0]; // rejects once stopped
      },
      effects: () => effects,
    };
  },
});
// endregion

test('parallel calls of a superseded run: none runs, the model reads the refusal, and the loop ends after the step', async () => {
  const fence = freshFence();
  const effects = [];
  const model = scriptedModel();
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const tools = fenceAiSdkTools(fence, { record: recordTool(effects) }, tokenFor(key, 1n));
  model.next = [1, 2, 3].map((i) => ({ name: 'record', args: { text: `late ${i}` } }));
  const result = await generateText({ model, tools, prompt: 'go', stopWhen: [isStepCount(5), runStopped] });
  assert.equal(result.steps.length, 1, 'the model was not asked again');
  const errors = result.steps[0].content.filter((p) => p.type === 'tool-error');
  assert.equal(errors.length, 3);
  for (const e of errors) assert.match(String(e.error.message), /^Tool call refused by Leasehold: a newer run of this session \(fence 2\)/);
  assert.equal(runStopOf(result.steps).refusal.reason, 'superseded');
  assert.deepEqual(effects, []);
});

test('with endRunOnRefusal false the model reads the refusal as the tool output', async () => {
  const fence = freshFence();
  const effects = [];
  const model = scriptedModel();
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const tools = fenceAiSdkTools(fence, { record: recordTool(effects) }, tokenFor(key, 1n), { endRunOnRefusal: false });
  const result = await turn(model, tools, [{ name: 'record', args: { text: 'late' } }]);
  assert.match(outputs(result)[0], /was NOT run/);
  assert.deepEqual(effects, []);
});

test('the fenced set takes no tool added later, and calling execute directly is fenced too', async () => {
  const fence = freshFence();
  const effects = [];
  const key = session();
  await fence.startRun(tokenFor(key, 2n));
  const clientSide = tool({ description: 'answered by the application', inputSchema: z.object({}) });
  const tools = fenceAiSdkTools(fence, { record: recordTool(effects), ask: clientSide }, tokenFor(key, 1n));
  assert.throws(() => { tools.sneaked = recordTool(effects); }, TypeError);
  assert.throws(() => { tools.record.execute = async () => 'bypass'; }, TypeError);
  assert.ok(isFencedAiSdkTool(tools.record) && tools.ask === clientSide);
  await assert.rejects(tools.record.execute({ text: 'direct' }, { toolCallId: 'c', messages: [] }), RunStoppedError);
  assert.deepEqual(effects, []);
});
