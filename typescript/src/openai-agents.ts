// The OpenAI Agents SDK for JavaScript (@openai/agents): its types only, so importing this entry
// point loads nothing of the SDK, and the core entry point never loads this one.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Agent, FunctionTool, MCPToolErrorFunction, MCPToolMetaResolver, RunContext, Tool } from '@openai/agents';
import {
  type AgentToolFence, LeaseLostError, type RunOrToken, RunStop, RunStoppedError, tokenOrUndefined, tokenTextOf,
} from './agent.js';
import { refusal } from './refusal.js';
import { IDEMPOTENCY_META_KEY, TOKEN_META_KEY } from './mcp.js';

export { idempotencyKeyArgument } from './agent.js';

/** Where a fenced tool finds its run and its idempotency key. */
export interface OpenAIAgentsFenceOptions {
  /**
   * The run a call belongs to, from the `context` given to `run(agent, input, { context })`;
   * default `context.lease`. A call that belongs to no run is not run (the SDK's run fails).
   */
  readonly runOf?: (context: unknown) => RunOrToken | undefined;
  /** The call's idempotency key, if any, from the tool's name and parsed arguments; default none. */
  readonly idempotencyKey?: (tool: string, args: unknown) => string | undefined;
  /**
   * Default true: a refused call throws `RunStoppedError` from the tool, which ends the SDK's run
   * (it rejects with the SDK's `ToolCallError` wrapping it). False: the model reads the refusal
   * as the tool's output, and the run's later calls are refused.
   */
  readonly endRunOnRefusal?: boolean;
  /**
   * For `fenceAgent` and `fenceAgentAsTool`: the tools not fenced here that the fenced agents may
   * still start, as `requireFencedTools`' `allow` (say, the tools of an MCP server whose fence
   * admits calls by their `_meta`); default none.
   */
  readonly allowUnfenced?: (tool: { name: string }) => boolean;
}

/** The tools this module fenced: the only ones `requireFencedTools` lets start. */
const FENCED = new WeakSet<object>();

/** The agents `fenceAgent` returned. */
const FENCED_AGENTS = new WeakSet<object>();

/**
 * The fenced call a nested run (an agent-as-tool's) runs in: a stop of a call inside it is noted
 * here, because the SDK's agent-as-tool turns the nested run's failure into a text for the model
 * ("An error occurred while running the tool. Please try again.") that the fence replaces with
 * the stop.
 */
const ENCLOSING_CALL = new AsyncLocalStorage<{ stop?: RunStop }>();

/** Notes a stop for the fenced call this one runs inside, if any (the first stop counts). */
function noteStop(stop: RunStop | undefined): void {
  const enclosing = ENCLOSING_CALL.getStore();
  if (stop !== undefined && enclosing !== undefined && enclosing.stop === undefined) enclosing.stop = stop;
}

/** The run in `context.lease`, the default of `runOf`. */
export function leaseInContext(context: unknown): RunOrToken | undefined {
  if (context === null || typeof context !== 'object') return undefined;
  return (context as { lease?: RunOrToken }).lease;
}

/**
 * The agent's function tools, fenced: each returned tool is a copy of the SDK's tool whose
 * `invoke` (the one method through which the SDK's runner, `invokeFunctionTool` and any other
 * caller run a function tool) admits the call through `fence` before the original `invoke` runs.
 * Every other member (name, schema, guardrails, approval) is the original's. A tool that is not
 * a function tool (a hosted tool, the computer or shell tools) is refused here with an error:
 * leave it out, or fence what it reaches. So is an agent-as-tool made by `Agent.asTool`, whose
 * agent's tools run on a runner of their own: build it with `fenceAgentAsTool`.
 */
export function fenceAgentTools<T extends Tool<any>>(fence: AgentToolFence, tools: readonly T[], options: OpenAIAgentsFenceOptions = {}): T[] {
  return tools.map((t) => {
    if (t === null || typeof t !== 'object' || t.type !== 'function') {
      throw new Error(`cannot fence the tool ${JSON.stringify((t as { name?: unknown })?.name ?? null)} of type ` +
        `${JSON.stringify((t as { type?: unknown })?.type ?? null)}: only function tools run in this process through invoke`);
    }
    return fenceAgentTool(fence, t as FunctionTool<any, any, any>, options) as unknown as T;
  });
}

/**
 * Whether a tool is an agent-as-tool (`Agent.asTool`): the SDK marks it by its `on` method. Its
 * agent runs on a runner of its own, which `requireFencedTools(runner)` does not reach.
 */
function isAgentAsTool(tool: object): boolean {
  return typeof (tool as { on?: unknown }).on === 'function';
}

/** One function tool, fenced as `fenceAgentTools` fences each. */
export function fenceAgentTool<C, R>(
  fence: AgentToolFence,
  tool: FunctionTool<C, any, R>,
  options: OpenAIAgentsFenceOptions = {},
): FunctionTool<C, any, R> {
  if (FENCED.has(tool)) return tool;
  if (isAgentAsTool(tool)) {
    throw new Error(`cannot fence the agent-as-tool "${tool.name}" made by asTool: its agent's tools would run unfenced on the ` +
      'agent\'s own runner; build it with fenceAgentAsTool(fence, agent, asToolOptions), which fences the agent\'s tools too');
  }
  return fenceFunctionTool(fence, tool, options);
}

function fenceFunctionTool<C, R>(
  fence: AgentToolFence,
  tool: FunctionTool<C, any, R>,
  options: OpenAIAgentsFenceOptions,
): FunctionTool<C, any, R> {
  const original = tool.invoke;
  const runOf = options.runOf ?? leaseInContext;
  const keyOf = options.idempotencyKey ?? (() => undefined);
  const endRun = options.endRunOnRefusal !== false;
  const invoke: FunctionTool<C, any, R>['invoke'] = async (runContext: RunContext<C>, input: string, details) => {
    let args: unknown;
    try {
      args = input === '' ? {} : JSON.parse(input);
    } catch {
      // The arguments are not what the model meant to send: nothing is admitted, nothing runs.
      return `Tool call refused by Leasehold: the arguments of "${tool.name}" are not one JSON value. The tool "${tool.name}" was NOT run.` as never;
    }
    const run = runOf(runContext?.context);
    if (run === undefined || run === null) {
      throw new Error(`the call of "${tool.name}" carries no run: pass the run's lease as run(agent, input, { context: { lease } }), ` +
        'or configure runOf; the tool did not run');
    }
    const call: { stop?: RunStop } = {};
    try {
      const value = await fence.invoke(run, tool.name, args, keyOf(tool.name, args),
        () => ENCLOSING_CALL.run(call, () => original.call(tool, runContext, input, details)), endRun);
      // A call refused inside this one (an agent-as-tool's nested run) stops this run too: the
      // SDK handed the model a text that asks it to try again, which is not what happened.
      if (call.stop === undefined) return value as never;
      if (endRun) throw new RunStoppedError(call.stop);
      return call.stop.messageForModel() as never;
    } catch (e) {
      noteStop(runStopOf(e));
      throw e;
    }
  };
  const fenced = Object.create(Object.getPrototypeOf(tool), Object.getOwnPropertyDescriptors(tool)) as FunctionTool<C, any, R>;
  Object.defineProperty(fenced, 'invoke', { value: invoke, enumerable: true, writable: false, configurable: false });
  FENCED.add(fenced);
  return fenced;
}

/**
 * An agent-as-tool whose agent's tools are fenced: `fenceAgent(fence, agent).asTool(asToolOptions)`,
 * itself fenced. The SDK runs the agent of an agent-as-tool on a runner of its own, so each of its
 * calls is admitted by its own fenced tool (with the lease of the run's context, which the nested
 * run shares), and a refusal inside it stops the outer run.
 */
export function fenceAgentAsTool<C>(
  fence: AgentToolFence,
  agent: Agent<C, any>,
  asToolOptions: Parameters<Agent<C, any>['asTool']>[0],
  options: OpenAIAgentsFenceOptions = {},
): FunctionTool<C, any, string> {
  const asTool = fenceAgent(fence, agent, options).asTool(asToolOptions) as unknown as FunctionTool<C, any, string>;
  return fenceFunctionTool(fence, asTool, options);
}

/**
 * A copy of the agent (`agent.clone`) whose tools are fenced (`fenceAgentTools`), whose handoffs'
 * agents are fenced the same way (a `Handoff` object must be built on an agent this returned), and
 * which refuses to start any tool not fenced (`requireFencedTools` on the agent, which the SDK
 * tells of each tool whatever runner runs it: the tools of an agent-as-tool too).
 */
export function fenceAgent<C>(fence: AgentToolFence, agent: Agent<C, any>, options: OpenAIAgentsFenceOptions = {}): Agent<C, any> {
  const copies = new Map<object, Agent<C, any>>();
  const copy = (a: Agent<C, any>): Agent<C, any> => {
    if (FENCED_AGENTS.has(a)) return a;
    const known = copies.get(a);
    if (known !== undefined) return known;
    const fenced = a.clone({ tools: fenceAgentTools(fence, a.tools, options) });
    copies.set(a, fenced);
    // Handoffs may form a cycle: each agent is copied once, then its handoffs are set.
    fenced.handoffs = a.handoffs.map((h) => {
      if (typeof (h as { clone?: unknown }).clone === 'function' && Array.isArray((h as { tools?: unknown }).tools)) return copy(h as Agent<C, any>);
      const target = (h as { agent?: unknown }).agent;
      if (typeof target === 'object' && target !== null && FENCED_AGENTS.has(target)) return h;
      throw new Error(`cannot fence the handoff ${JSON.stringify((h as { toolName?: unknown }).toolName ?? null)} of the agent ` +
        `"${a.name}": its agent's tools would run unfenced; give the agent itself in handoffs, or build the handoff on fenceAgent(fence, agent)`);
    }) as typeof fenced.handoffs;
    requireFencedTools(fenced, options.allowUnfenced);
    FENCED_AGENTS.add(fenced);
    return fenced;
  };
  return copy(agent);
}

/** Whether `tool` is one `fenceAgentTools` returned. */
export function isFencedAgentTool(tool: unknown): boolean {
  return typeof tool === 'object' && tool !== null && FENCED.has(tool);
}

/**
 * The stop a failed run ended with, if a Leasehold refusal ended it: the SDK rejects `run()` with
 * its own error (a `ToolCallError`) that holds the tool's `RunStoppedError` in `error`.
 */
export function runStopOf(failure: unknown): RunStop | undefined {
  let e: unknown = failure;
  for (let depth = 0; depth < 8 && e !== null && typeof e === 'object'; depth++) {
    if (e instanceof RunStoppedError) return e.stop;
    const inner: unknown = (e as { error?: unknown }).error ?? (e as { cause?: unknown }).cause;
    if (inner === e) break;
    e = inner;
  }
  return undefined;
}

/** Thrown when a tool that was not fenced is about to start: the run ends before it runs. */
export class UnfencedToolError extends Error {
  constructor(name: string) {
    super(`the tool "${name}" was not fenced by Leasehold (added after fenceAgentTools?): the run is stopped before it runs; ` +
      'fence it with fenceAgentTools, or allow it in requireFencedTools (a tool on a fenced MCP server)');
    this.name = 'UnfencedToolError';
  }
}

/** The part of the SDK's `Runner` (or an `Agent`) this module listens on. */
export interface ToolStartEmitter {
  on(event: 'agent_tool_start', listener: (...args: any[]) => void): unknown;
}

/**
 * Makes a runner refuse to start any function tool that `fenceAgentTools` did not return (a tool
 * pushed onto `agent.tools` later, a handoff's agent with its own tools), unless `allow` says it
 * is safe (say, a tool of an MCP server whose fence admits calls by their `_meta`). The SDK emits
 * `agent_tool_start` synchronously before it invokes a tool, and an error thrown by a listener
 * ends the run there.
 */
export function requireFencedTools(runner: ToolStartEmitter, allow: (tool: { name: string }) => boolean = () => false): void {
  runner.on('agent_tool_start', (...args: unknown[]) => {
    // The runner passes (context, agent, tool, details); an agent passes (context, tool, details).
    const tool = (args.find((a, i) => i > 0 && a !== null && typeof a === 'object' && (a as { type?: unknown }).type === 'function')
      ?? args[2]) as { name: string; type?: string } | undefined;
    if (tool === undefined || tool.type !== 'function') return;
    if (!isFencedAgentTool(tool) && !allow(tool)) throw new UnfencedToolError(tool.name);
  });
}

/**
 * The SDK's own hook for an MCP tool call's `_meta` (`toolMetaResolver` of `MCPServerStdio`,
 * `MCPServerStreamableHttp` and `MCPServerSSE`): every call carries the run's token in
 * `_meta["io.leasehold/token"]`, and its idempotency key, if any, in
 * `_meta["io.leasehold/idempotency-key"]`, so the server's fence (`fenceTool` in Node,
 * `McpToolFence` in Java) admits it. A run whose lease is lost, or a call with no run, throws
 * `RunStoppedError` here: nothing is sent; give the server `errorFunction: endRunOnStop()` so that
 * it ends the run rather than telling the model to try again.
 */
export function leaseholdToolMeta<C = unknown>(options: Omit<OpenAIAgentsFenceOptions, 'endRunOnRefusal'> = {}): MCPToolMetaResolver<C> {
  const runOf = options.runOf ?? leaseInContext;
  return ({ runContext, toolName, arguments: args }) => {
    const run = runOf(runContext?.context);
    if (run === undefined || run === null) {
      const stop = new RunStop(undefined, toolName, refusal('missing', {
        detail: `the MCP call of "${toolName}" carries no run: pass the run's lease as run(agent, input, { context: { lease } })`,
      }));
      noteStop(stop);
      throw new RunStoppedError(stop);
    }
    let text: string;
    try {
      text = tokenTextOf(run);
    } catch (e) {
      if (!(e instanceof LeaseLostError)) throw e;
      const token = tokenOrUndefined(e.tokenText);
      const stop = new RunStop(token, toolName, refusal('lease_lost', { token, detail: e.message }));
      noteStop(stop);
      throw new RunStoppedError(stop);
    }
    const key = options.idempotencyKey?.(toolName, args);
    return { [TOKEN_META_KEY]: text, ...(key === undefined ? {} : { [IDEMPOTENCY_META_KEY]: key }) };
  };
}

/**
 * An MCP server's `errorFunction` that ends the run on a `RunStoppedError` (a lost lease, a call
 * with no run) and hands every other failure to `fallback` (default: a fixed text that names no
 * detail, as the SDK's own default does).
 */
export function endRunOnStop(fallback?: MCPToolErrorFunction): MCPToolErrorFunction {
  return (args) => {
    if (args.error instanceof RunStoppedError) throw args.error;
    return fallback === undefined ? 'The tool failed, and was not run to its end.' : fallback(args);
  };
}
