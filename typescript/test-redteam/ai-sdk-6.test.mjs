// Red-team probe on ai 6 (Node 20): the tool approval flow (needsApproval) and runStopOf/runStopped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import * as ai from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { fenceAiSdkTools, runStopOf, runStopped } from '../dist/ai-sdk.js';
import { freshFence, session, tokenFor } from '../fixtures/agent-tokens.mjs';
import { scriptedModel } from '../fixtures/scripted-ai-model.mjs';

test('ai 6: needsApproval: a call approved after a newer run started is refused, and the result shows the stop', async () => {
  const { generateText, stepCountIs, tool } = ai;
  const fence = freshFence();
  const effects = [];
  const key = session();
  const model = scriptedModel(MockLanguageModelV3);
  const tools = fenceAiSdkTools(fence, { record: tool({ description: 'r', inputSchema: z.object({ text: z.string() }), needsApproval: true,
    execute: async ({ text }) => { effects.push(text); return 'ok'; } }) }, tokenFor(key, 1n));
  model.next = [{ name: 'record', args: { text: 'approve me' } }];
  const first = await generateText({ model, tools, prompt: 'go', stopWhen: [stepCountIs(5), runStopped] });
  const req = first.content.find((p) => p.type === 'tool-approval-request');
  assert.ok(req);
  await fence.startRun(tokenFor(key, 2n));
  const messages = [{ role: 'user', content: 'go' }, ...first.response.messages,
    { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: req.approvalId, approved: true }] }];
  const second = await generateText({ model, tools, messages, stopWhen: [stepCountIs(5), runStopped] });
  assert.deepEqual(effects, []);
  assert.equal(runStopOf(second.steps)?.refusal.reason, 'superseded',
    `refused, but runStopOf(result.steps) does not see it and the model was asked again (${model.doGenerateCalls.length} model calls)`);
});
