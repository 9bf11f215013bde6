// The MCP middleware against the real SDK, client and server in one process (InMemoryTransport).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';
import {
  FENCE_META_KEY, IDEMPOTENCY_META_KEY, InMemoryFenceGuard, REFUSAL_MESSAGES, REFUSAL_META_KEY, TOKEN_META_KEY, TokenKeySet,
  fenceTool, fencedToolConfig, refusalResult, signedBy, toolNote, withToken,
} from '../dist/index.js';
import { readFileSync } from 'node:fs';
import { refusalDetails } from '../fixtures/refusal-input.mjs';

const vectors = JSON.parse(readFileSync(new URL('../../docs/token-vectors.json', import.meta.url), 'utf8'));
const valid = (name) => vectors.cases.find((c) => c.name === name);

async function start(guardOverride) {
  const hmac = valid('valid HMAC-SHA-256 token');
  const keys = TokenKeySet.parse(hmac.verifier.keys.join('\n'));
  const guard = guardOverride ?? new InMemoryFenceGuard({ verifier: signedBy(keys, { clock: () => hmac.nowMillis }) });
  const runs = [];
  const server = new McpServer({ name: 't', version: '1' });
  server.registerTool('write_file', fencedToolConfig({ description: 'Writes a file', inputSchema: { path: z.string() } }),
    fenceTool({ guard, scope: (key, args) => args.path.startsWith(`${key.accountId}/${key.sessionId}/`) },
      async ({ path }) => { runs.push(path); return { content: [{ type: 'text', text: `wrote ${path}` }] }; }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(b);
  return { client, runs, hmac, guard };
}

test('a fenced tool runs for a valid token and refuses a missing, malformed, forged or out-of-scope one', async () => {
  const { client, runs, hmac } = await start();
  const ok = await client.callTool(withToken({ name: 'write_file', arguments: { path: 'acct-7/chat-1/a.md' } }, hmac.token));
  assert.notEqual(ok.isError, true);
  const reasonOf = async (params) => (await client.callTool(params))._meta[REFUSAL_META_KEY].reason;
  assert.equal(await reasonOf({ name: 'write_file', arguments: { path: 'acct-7/chat-1/b.md' } }), 'missing');
  assert.equal(await reasonOf(withToken({ name: 'write_file', arguments: { path: 'acct-7/chat-1/b.md' } }, 'lh2.x')), 'malformed');
  assert.equal(await reasonOf(withToken({ name: 'write_file', arguments: { path: 'acct-7/chat-1/b.md' } },
    valid('tampered fence').token)), 'forged');
  assert.equal(await reasonOf(withToken({ name: 'write_file', arguments: { path: 'victim/s/b.md' } }, hmac.token)), 'out_of_scope');
  assert.deepEqual(runs, ['acct-7/chat-1/a.md']);
});

test('a lower fence after a higher one is refused as superseded, and the body does not run', async () => {
  const { client, runs, hmac } = await start();
  const newer = valid('valid with the largest fence').token; // same key, HMAC, fence 2^63-1
  const call = (token) => client.callTool(withToken({ name: 'write_file', arguments: { path: 'acct-7/chat-1/a.md' } }, token));
  assert.notEqual((await call(newer)).isError, true);
  const refused = await call(hmac.token);
  assert.equal(refused.isError, true);
  const r = refused._meta[REFUSAL_META_KEY];
  assert.equal(r.reason, 'superseded');
  assert.equal(r.fence, '42');
  assert.equal(r.highestSeen, '9223372036854775807');
  assert.equal(r.accountId, 'acct-7');
  assert.deepEqual(runs, ['acct-7/chat-1/a.md']);
});

// Issue 46 item 9: the refusal object is the Java one, checked against the same vectors.
const refusalVectors = JSON.parse(readFileSync(new URL('../../docs/mcp-refusal-vectors.json', import.meta.url), 'utf8'));

test('node writes every refusal vector exactly as Java does', () => {
  assert.ok(refusalVectors.cases.length >= 10);
  for (const c of refusalVectors.cases) {
    const written = refusalResult(c.input.reason, refusalDetails(c.input));
    assert.deepEqual(written, c.result, c.name);
    assert.equal(written.content[0].text.split('NOT run').length, 2, c.name);
  }
});

test("the fence's own words are the vectors' words", () => {
  const m = refusalVectors.messages;
  assert.equal(REFUSAL_MESSAGES.missing, m.missing);
  assert.equal(REFUSAL_MESSAGES.tokenNotAString, m.tokenNotAString);
  assert.equal(REFUSAL_MESSAGES.badIdempotencyKey, m.badIdempotencyKey);
  assert.equal(REFUSAL_MESSAGES.duplicate, m.duplicate);
  assert.equal(REFUSAL_MESSAGES.unavailable, m.unavailable);
  assert.equal(toolNote(true), m.toolNoteRequired);
  assert.equal(toolNote(false), m.toolNoteOptional);
  assert.ok(!REFUSAL_MESSAGES.missing.includes('McpRunFence'));
});

test('a guard that fails is refused as unavailable, naming no table and no SQL state', async () => {
  const failing = { admit: async () => { throw new Error('lock timeout on "public"."leasehold_high_water" (SQLSTATE 55P03)'); } };
  const { client, runs, hmac } = await start(failing);
  const r = await client.callTool(withToken({ name: 'write_file', arguments: { path: 'acct-7/chat-1/a.md' } }, hmac.token));
  assert.equal(r.isError, true);
  assert.equal(r._meta[REFUSAL_META_KEY].reason, 'unavailable');
  assert.equal(r._meta[REFUSAL_META_KEY].message, REFUSAL_MESSAGES.unavailable);
  assert.ok(!JSON.stringify(r).includes('leasehold_high_water') && !JSON.stringify(r).includes('55P03'));
  assert.deepEqual(runs, []);
});

// Red team, issue 46: a thrown Proxy whose getPrototypeOf trap throws made the fence's own
// instanceof check throw, and the trap's message (a table and an SQL state) reached the client as
// a plain tool error; and a guard that answered without an admission let the body run.
test('a guard that throws something uninspectable, or admits nothing, is refused as unavailable', async () => {
  const trap = () => { throw new Error('relation "leasehold_high_water" SQLSTATE 55P03 (getPrototypeOf trap)'); };
  const hostile = new Proxy({}, { getPrototypeOf: trap, get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap });
  for (const guard of [{ admit: async () => { throw hostile; } }, { admit: async () => 7 }, { admit: async () => undefined }]) {
    const { client, runs, hmac } = await start(guard);
    const r = await client.callTool(withToken({ name: 'write_file', arguments: { path: 'acct-7/chat-1/a.md' } }, hmac.token));
    assert.equal(r.isError, true);
    assert.equal(r._meta?.[REFUSAL_META_KEY]?.reason, 'unavailable', JSON.stringify(r));
    assert.ok(!JSON.stringify(r).includes('leasehold_high_water') && !JSON.stringify(r).includes('55P03'));
    assert.deepEqual(runs, []);
  }
});

test('a non-string or empty idempotency key is refused as malformed, and the body does not run', async () => {
  const { client, runs, hmac } = await start();
  for (const bad of [42, '', 'k'.repeat(201), ['k'], { k: 1 }]) {
    const r = await client.callTool({ name: 'write_file', arguments: { path: 'acct-7/chat-1/a.md' },
      _meta: { [TOKEN_META_KEY]: hmac.token, [IDEMPOTENCY_META_KEY]: bad } });
    assert.equal(r._meta[REFUSAL_META_KEY].reason, 'malformed', JSON.stringify(bad));
    assert.equal(r._meta[REFUSAL_META_KEY].message, REFUSAL_MESSAGES.badIdempotencyKey);
  }
  assert.deepEqual(runs, []);
});

test('the missing refusal says how to get a token in any language', async () => {
  const { client } = await start();
  const r = await client.callTool({ name: 'write_file', arguments: { path: 'acct-7/chat-1/a.md' } });
  assert.equal(r._meta[REFUSAL_META_KEY].message, REFUSAL_MESSAGES.missing);
  assert.equal(r.content[0].text.split('NOT run').length, 2);
});

test('a fenced tool says in tools/list that it needs a token and where it goes', async () => {
  const { client } = await start();
  const [tool] = (await client.listTools()).tools;
  assert.ok(tool.description.startsWith('Writes a file'));
  assert.ok(tool.description.endsWith(toolNote(true)));
  assert.deepEqual(tool._meta[FENCE_META_KEY], {
    tokenRequired: true, tokenMetaKey: TOKEN_META_KEY, idempotencyMetaKey: IDEMPOTENCY_META_KEY, refusalMetaKey: REFUSAL_META_KEY,
  });
});
