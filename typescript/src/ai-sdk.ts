// The Vercel AI SDK (ai): its types only, so importing this entry point loads nothing of the SDK,
// and the core entry point never loads this one.
import type { StepResult, ToolSet } from 'ai';
import { type AgentToolFence, type RunOrToken, RunStop, RunStoppedError, tokenOrUndefined, tokenTextOf } from './agent.js';

/** How a run's tools are fenced. */
export interface AiSdkFenceOptions {
  /** The call's idempotency key, if any, from the tool's name and input; default none. */
  readonly idempotencyKey?: (tool: string, input: unknown) => string | undefined;
  /**
   * Default true: a refused call throws `RunStoppedError` from `execute`, which the SDK hands to
   * the model as the call's tool error (its message is the stop's `messageForModel()`), and
   * `runStopped` ends the loop after that step. False: the model reads the same text as the
   * tool's output.
   */
  readonly endRunOnRefusal?: boolean;
}

/** The tools this module fenced. */
const FENCED = new WeakSet<object>();

/** The tool sets this module fenced, each with its fence and run (for `runStopOf`). */
const RUNS = new WeakMap<object, { readonly fence: AgentToolFence; readonly run: RunOrToken }>();

/** The hooks the SDK runs with a call's input before `execute`: each runs only if the run may still call. */
const INPUT_HOOKS = ['onInputStart', 'onInputDelta', 'onInputAvailable'] as const;

/**
 * A run's tools, fenced: each tool with an `execute` is a copy whose `execute` (the one function
 * through which `generateText`, `streamText`, an `Agent` or any caller runs it) admits the call
 * through `fence` for `run` before the original runs. The set is frozen, so no tool is added to
 * it unfenced. Fence the tools per run
 * (`tools: fenceAiSdkTools(fence, tools, lease)`): the tool set carries its run. A tool without
 * `execute` never runs here (the application gets its calls), so it is passed on unchanged.
 */
export function fenceAiSdkTools<T extends ToolSet>(fence: AgentToolFence, tools: T, run: RunOrToken, options: AiSdkFenceOptions = {}): T {
  if (run === undefined || run === null) throw new Error('fenceAiSdkTools needs the run: its lease ({ token(): string }) or its token text');
  const keyOf = options.idempotencyKey ?? (() => undefined);
  const endRun = options.endRunOnRefusal !== false;
  const fenced: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = (tool as { execute?: unknown }).execute;
    if (typeof execute !== 'function') {
      fenced[name] = tool;
      continue;
    }
    const copy = Object.create(Object.getPrototypeOf(tool), Object.getOwnPropertyDescriptors(tool));
    const original = (input: unknown, callOptions: unknown) => execute.call(tool, input, callOptions);
    Object.defineProperty(copy, 'execute', {
      enumerable: true,
      writable: false,
      configurable: false,
      value: isAsyncGeneratorFunction(execute)
        ? streamingExecute(fence, run, name, original, keyOf, endRun)
        : (input: unknown, callOptions: unknown) =>
          fence.invoke(run, name, input, keyOf(name, input), () => original(input, callOptions), endRun),
    });
    for (const hook of INPUT_HOOKS) {
      const hookOf = (tool as Record<string, unknown>)[hook];
      if (typeof hookOf !== 'function') continue;
      Object.defineProperty(copy, hook, {
        enumerable: true,
        writable: false,
        configurable: false,
        // A hook with side effects must not run for a call the fence would refuse: it runs before
        // the call is admitted, so it is checked without admitting (the call itself still is).
        value: async (hookOptions: unknown) => {
          if (await fence.stopBeforeAdmission(run, name) !== undefined) return undefined;
          return hookOf.call(tool, hookOptions);
        },
      });
    }
    FENCED.add(copy);
    fenced[name] = copy;
  }
  // Frozen: a tool added to the set after fencing would run unfenced, so none can be.
  const set = Object.freeze(fenced) as T;
  RUNS.set(set, { fence, run });
  return set;
}

function isAsyncGeneratorFunction(f: unknown): boolean {
  return Object.prototype.toString.call(f) === '[object AsyncGeneratorFunction]';
}

/**
 * A streaming tool's `execute` (an async generator, whose outputs the SDK passes on as
 * preliminary results), fenced: the call is admitted before the generator starts. Without an
 * idempotency key its outputs stream as they come; with one, the call runs to its end inside the
 * fence so that a retry can be answered with all of its outputs, which then follow at once.
 */
function streamingExecute(
  fence: AgentToolFence,
  run: RunOrToken,
  name: string,
  original: (input: unknown, callOptions: unknown) => unknown,
  keyOf: (tool: string, input: unknown) => string | undefined,
  endRun: boolean,
): (input: unknown, callOptions: unknown) => AsyncGenerator<unknown> {
  return async function* fencedStream(input, callOptions) {
    const key = keyOf(name, input);
    if (key === undefined) {
      // Wrapped, so that the admitted call hands back the generator unstarted (not awaited).
      const started = await fence.invoke(run, name, input, undefined, () => ({ outputs: original(input, callOptions) as AsyncIterable<unknown> }), endRun);
      if (typeof started === 'string') yield started;
      else yield* started.outputs;
      return;
    }
    const outputs = await fence.invoke(run, name, input, key, async () => {
      const all: unknown[] = [];
      for await (const o of original(input, callOptions) as AsyncIterable<unknown>) all.push(o);
      return all;
    }, endRun);
    if (typeof outputs === 'string') yield outputs;
    else yield* outputs;
  };
}

/** Whether `tool` is one `fenceAiSdkTools` returned. */
export function isFencedAiSdkTool(tool: unknown): boolean {
  return typeof tool === 'object' && tool !== null && FENCED.has(tool);
}

/**
 * The stop of the last step's refused call, if one of its tool calls was refused; given the
 * run's fenced tool set, also the run's stop that the fence remembers (superseded or lost) when
 * no step holds it: a call approved through the SDK's approval flow (`needsApproval`) runs
 * before the first step, and its refusal reaches the model's prompt but no step.
 */
export function runStopOf(steps: readonly StepResult<any>[], tools?: ToolSet): RunStop | undefined {
  const last = steps[steps.length - 1];
  for (const part of last?.content ?? []) {
    if (part.type === 'tool-error' && part.error instanceof RunStoppedError) return part.error.stop;
  }
  const fenced = tools === undefined ? undefined : RUNS.get(tools);
  if (fenced === undefined) return undefined;
  let token;
  try {
    token = tokenOrUndefined(tokenTextOf(fenced.run));
  } catch {
    // A lease lost since the last call: the next call is refused as lost; no call was refused yet.
    return undefined;
  }
  return token === undefined ? undefined : fenced.fence.stopOf(token);
}

/**
 * A stop condition for `stopWhen` (with your others: `stopWhen: [isStepCount(10), runStopped]`):
 * the loop ends after a step in which a call was refused, so the model is not asked again. The
 * result's `steps` hold the refusal (`runStopOf(result.steps)`). With the approval flow, use
 * `runStoppedFor(tools)`.
 */
export function runStopped({ steps }: { readonly steps: readonly StepResult<any>[] }): boolean {
  return runStopOf(steps) !== undefined;
}

/**
 * `runStopped` for a run's fenced tool set (`stopWhen: [isStepCount(10), runStoppedFor(tools)]`):
 * also ends the loop after the first step when a call approved through `needsApproval` was
 * refused before it (`runStopOf(result.steps, tools)` gives that stop).
 */
export function runStoppedFor(tools: ToolSet): (options: { readonly steps: readonly StepResult<any>[] }) => boolean {
  if (!RUNS.has(tools)) throw new Error('runStoppedFor needs the tool set fenceAiSdkTools returned');
  return ({ steps }) => runStopOf(steps, tools) !== undefined;
}
