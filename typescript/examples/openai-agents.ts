// An OpenAI Agents SDK agent whose tool is fenced: a superseded run's call never reaches it.
// Type-checked in the build, and run by test-sdk/examples.test.mjs with a scripted model.
import { Agent, MCPServerStreamableHttp, run, tool, type Model } from '@openai/agents';
import { z } from 'zod';
import { AgentToolFence, InMemoryFenceGuard, type FencedRun, type TokenVerifier } from '@leasehold/fencing';
import {
  endRunOnStop, fenceAgentTools, idempotencyKeyArgument, leaseholdToolMeta, runStopOf,
} from '@leasehold/fencing/openai-agents';

/** The concierge agent: `model` is a model name, or a `Model` (a test's scripted one). */
export function concierge(verifier: TokenVerifier, model: string | Model, booked: string[]) {
  // region openai-agents-setup
  const fence = new AgentToolFence({ guard: new InMemoryFenceGuard({ verifier }) });
  const bookTable = tool({
    name: 'book_table',
    description: 'Books a restaurant table',
    parameters: z.object({ name: z.string(), idempotencyKey: z.string().nullable() }),
    execute: async ({ name }) => {
      booked.push(name); // the side effect: only an admitted call gets here
      return `booked for ${name}`;
    },
  });
  const agent = new Agent({
    name: 'concierge',
    instructions: 'Book what the user asks for.',
    model,
    tools: fenceAgentTools(fence, [bookTable], { idempotencyKey: idempotencyKeyArgument('idempotencyKey') }),
  });
  // endregion

  async function chat(lease: FencedRun, message: string): Promise<string | undefined> {
    // region openai-agents-run
    await fence.startRun(lease); // calls of older runs of the session are refused from now on
    try {
      const result = await run(agent, message, { context: { lease } });
      return result.finalOutput;
    } catch (e) {
      const stop = runStopOf(e);
      if (stop === undefined) throw e;
      // A newer run of this session took over (or this lease was lost): the tool did not run.
      console.log(`stopped (${stop.refusal.reason}): ${stop.messageForModel()}`);
      return undefined;
    }
    // endregion
  }
  return { fence, chat };
}

/** An MCP server whose fence (Java's McpToolFence or this package's fenceTool) admits each call by its _meta. */
export function fencedNotesServer(url: string): MCPServerStreamableHttp {
  // region openai-agents-mcp
  const notes = new MCPServerStreamableHttp({
    url, // a server fenced by McpToolFence (Java) or fenceTool (Node)
    toolMetaResolver: leaseholdToolMeta(), // each call's _meta carries context.lease's token
    errorFunction: endRunOnStop(), // a lost lease ends the run; nothing is sent
  });
  // endregion
  return notes;
}
