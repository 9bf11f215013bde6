// The MCP middleware against the real SDK, client and server in one process (InMemoryTransport).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';
import { InMemoryFenceGuard, REFUSAL_META_KEY, TokenKeySet, fenceTool, signedBy, withToken } from '../dist/index.js';
import { readFileSync } from 'node:fs';

const vectors = JSON.parse(readFileSync(new URL('../../docs/token-vectors.json', import.meta.url), 'utf8'));
const valid = (name) => vectors.cases.find((c) => c.name === name);

async function start() {
  const hmac = valid('valid HMAC-SHA-256 token');
  const keys = TokenKeySet.parse(hmac.verifier.keys.join('\n'));
  const guard = new InMemoryFenceGuard({ verifier: signedBy(keys, { clock: () => hmac.nowMillis }) });
  const runs = [];
  const server = new McpServer({ name: 't', version: '1' });
  server.registerTool('write_file', { inputSchema: { path: z.string() } },
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
  assert.equal(r.fence, 42);
  assert.equal(r.accountId, 'acct-7');
  assert.deepEqual(runs, ['acct-7/chat-1/a.md']);
});
