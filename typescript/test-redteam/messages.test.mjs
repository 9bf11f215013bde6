// Red-team probes: do refusals and errors say how to repair? (Node 22: loads @openai/agents 0.20)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as sdk from '@openai/agents';
import { fenceAgentTools, leaseholdToolMeta, UnfencedToolError } from '../dist/openai-agents.js';
import { freshFence, session, tokenFor } from '../fixtures/agent-tokens.mjs';

const quietly = async (f) => { const e = console.error; console.error = () => {}; try { return await f(); } finally { console.error = e; } };

test('messages: a malformed idempotency key is not reported as an unverifiable token', async () => {
  const fence = freshFence();
  const err = await quietly(() => fence.invoke(tokenFor(session(), 1n), 'record', {}, '', () => 1).then(() => undefined, (e) => e));
  assert.equal(err.stop.refusal.reason, 'malformed');
  assert.doesNotMatch(err.message, /token could not be verified/, 'the token was valid; the idempotency key was empty');
  assert.match(err.stop.refusal.message ?? err.message, /idempotency key/i, `no word of the idempotency key: ${err.message} / ${err.stop.refusal.message}`);
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
