// The OpenAI Agents SDK's MCP tools carry the run's token in _meta through the SDK's own hook
// (toolMetaResolver of MCPServerStreamableHttp), so the Node server fence (fenceTool) admits them:
// a real streamable HTTP MCP server on 127.0.0.1, in this process; a scripted model. No network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { Agent, MCPServerStreamableHttp, Runner, setTracingDisabled } from '@openai/agents';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import {
  IDEMPOTENCY_META_KEY, InMemoryFenceGuard, LeaseLostError, RunStoppedError, TOKEN_META_KEY, fenceTool, fencedToolConfig,
  idempotencyKeyArgument,
} from '../dist/index.js';
import { endRunOnStop, leaseholdToolMeta } from '../dist/openai-agents.js';
import { session, tokenFor, verifier } from '../fixtures/agent-tokens.mjs';
import { ScriptedModel, toolOutputs } from '../fixtures/scripted-openai-model.mjs';

setTracingDisabled(true);

/** A fenced MCP server (stateless streamable HTTP), its tool recording what ran and the _meta it got. */
async function startServer() {
  const guard = new InMemoryFenceGuard({ verifier: verifier() });
  const runs = [];
  const metas = [];
  const http = createServer(async (req, res) => {
    const server = new McpServer({ name: 'notes', version: '1' });
    server.registerTool('write_note', fencedToolConfig({ description: 'Writes a note', inputSchema: { text: z.string(), idempotencyKey: z.string().optional() } }),
      fenceTool({ guard }, async ({ text }, extra) => {
        runs.push(text);
        metas.push(extra._meta);
        return { content: [{ type: 'text', text: `wrote ${text}` }] };
      }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => { transport.close(); server.close(); });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const close = () => { http.closeAllConnections(); return new Promise((r) => http.close(r)); };
  return { url: `http://127.0.0.1:${http.address().port}/mcp`, runs, metas, close };
}

/** An agent whose one MCP server is the fenced one, with Leasehold's _meta hook and error function. */
async function withAgent(body) {
  const server = await startServer();
  const mcp = new MCPServerStreamableHttp({
    url: server.url, name: 'notes', cacheToolsList: true,
    toolMetaResolver: leaseholdToolMeta({ idempotencyKey: idempotencyKeyArgument('idempotencyKey') }),
    errorFunction: endRunOnStop(),
  });
  await mcp.connect();
  const model = new ScriptedModel();
  const agent = new Agent({ name: 'notes', instructions: 'Write notes.', model, mcpServers: [mcp] });
  const runner = new Runner();
  const call = async (lease, args) => {
    model.next = [{ name: 'write_note', args }];
    return toolOutputs(await runner.run(agent, 'go', { context: { lease } }))[0];
  };
  try {
    await body({ server, call });
  } finally {
    await mcp.close();
    await server.close();
  }
}

const textOf = (output) => (typeof output === 'string' ? output : output?.text ?? JSON.stringify(output));

test("an MCP tool call carries the run's token and idempotency key in _meta, and the Node server fence admits it", () => withAgent(async ({ server, call }) => {
  const run = tokenFor(session(), 1n);
  assert.match(textOf(await call(run, { text: 'first', idempotencyKey: 'note-1' })), /wrote first/);
  assert.deepEqual(server.runs, ['first']);
  assert.equal(server.metas[0][TOKEN_META_KEY], run);
  assert.equal(server.metas[0][IDEMPOTENCY_META_KEY], 'note-1');
}));

test("a superseded run's MCP call is refused by the server, and the model reads the refusal", () => withAgent(async ({ server, call }) => {
  const key = session();
  await call(tokenFor(key, 2n), { text: 'browser' });
  const read = textOf(await call(tokenFor(key, 1n), { text: 'desktop late' }));
  assert.match(read, /Refused by Leasehold \(superseded\)/);
  assert.match(read, /NOT run/);
  assert.deepEqual(server.runs, ['browser']);
}));

test('a run whose lease is lost, or a call with no run, sends nothing and ends the run', () => withAgent(async ({ server, call }) => {
  const text = tokenFor(session(), 1n);
  const lost = { token: () => { throw new LeaseLostError(text, 'renewal failed'); } };
  for (const [lease, reason] of [[lost, 'lease_lost'], [undefined, 'missing']]) {
    const failure = await call(lease, { text: 'not sent' }).then(() => undefined, (e) => e);
    const stop = failure instanceof RunStoppedError ? failure : failure?.error;
    assert.ok(stop instanceof RunStoppedError, String(failure));
    assert.equal(stop.stop.refusal.reason, reason);
  }
  assert.deepEqual(server.runs, []);
}));
