// The documented examples (examples/openai-agents.ts, examples/ai-sdk.ts), run as they are (Node 22
// strips their types) with scripted models: the desktop's run books, the browser's run takes over,
// and the desktop's next booking never reaches the tool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Usage, setTracingDisabled } from '@openai/agents';
import { MockLanguageModelV4 } from 'ai/test';
import { concierge as openAiConcierge } from '../examples/openai-agents.ts';
import { concierge as aiSdkConcierge } from '../examples/ai-sdk.ts';
import { session, tokenFor, verifier } from '../fixtures/agent-tokens.mjs';
import { scriptedModelClass } from '../fixtures/scripted-openai-model.mjs';
import { scriptedModel } from '../fixtures/scripted-ai-model.mjs';

setTracingDisabled(true);
const ScriptedModel = scriptedModelClass(Usage);

const lease = (text) => ({ token: () => text });

for (const [name, build, model, call] of [
  ['OpenAI Agents SDK', openAiConcierge, new ScriptedModel(), (who) => ({ name: 'book_table', args: { name: who, idempotencyKey: null } })],
  ['Vercel AI SDK', aiSdkConcierge, scriptedModel(MockLanguageModelV4), (who) => ({ name: 'bookTable', args: { name: who } })],
]) {
  test(`the ${name} example: the desktop's late booking never reaches the tool`, async () => {
    const booked = [];
    const { chat, fence } = build(verifier(), model, booked);
    const key = session();
    const [desktop, browser] = [lease(tokenFor(key, 1n)), lease(tokenFor(key, 2n))];
    model.next = [call('Ada')];
    assert.equal(await chat(desktop, 'Book a table for Ada'), 'done');
    // The desktop's next run: while its model thinks, the browser's run takes over the session.
    model.next = [call('Ada again')];
    model.beforeTurn = () => fence.startRun(browser);
    assert.equal(await chat(desktop, 'Book another table for Ada'), undefined);
    model.next = [call('Grace')];
    assert.equal(await chat(browser, 'Book a table for Grace'), 'done');
    assert.deepEqual(booked, ['Ada', 'Grace']);
  });
}
