import { type FenceGuard, strictScope } from './guard.js';
import { type FencingToken, type LeaseKey, parseToken } from './token.js';
import {
  REFUSAL_WORDS, refusal, refusalOf, writtenRefusal, type Refusal, type RefusalDetails, type RefusalReason,
} from './refusal.js';

export type { RefusalDetails, RefusalReason } from './refusal.js';

/** The `_meta` key of a `tools/call` that carries the token (docs/mcp.md). */
export const TOKEN_META_KEY = 'io.leasehold/token';
/** The `_meta` key of a `tools/call` that carries an idempotency key (docs/mcp.md). */
export const IDEMPOTENCY_META_KEY = 'io.leasehold/idempotency-key';
/** The result `_meta` key of a refusal. */
export const REFUSAL_META_KEY = 'io.leasehold/refusal';
/** The `_meta` key of a fenced tool's `tools/list` entry. */
export const FENCE_META_KEY = 'io.leasehold/fence';
/** The most characters (UTF-16 code units) of an idempotency key. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

/** A tool result, as the MCP SDK's handlers return it (structurally). */
export interface ToolResult {
  content: { type: string; [k: string]: unknown }[];
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [k: string]: unknown;
}

/** What a handler's second argument carries that the fence reads. */
export interface ToolExtra {
  _meta?: Record<string, unknown>;
}

export interface FenceToolOptions<A> {
  /** Verifies and admits each call's token. */
  readonly guard: FenceGuard;
  /** Whether the token's key owns what this call touches (C19); default: every call is its own. */
  readonly scope?: (key: LeaseKey, args: A) => boolean;
  /** The migration switch: let calls without a token run unfenced (warned each time). Default false. */
  readonly acceptUnfencedCalls?: boolean;
}

/** The fence's own words, the same in Java (`McpRefusal`, `McpFencing`) and in docs/mcp-refusal-vectors.json. */
export const REFUSAL_MESSAGES = {
  missing: `the call carries no Leasehold token. This tool needs the calling run's lease token, in its text form (lh2.…), as a JSON string in params._meta["${TOKEN_META_KEY}"] of every tools/call; the lease store that granted the run's lease issues it (docs/token-spec.md)`,
  tokenNotAString: `the token in params._meta["${TOKEN_META_KEY}"] must be a JSON string holding the token's text form (lh2.…)`,
  badIdempotencyKey: `the idempotency key in params._meta["${IDEMPOTENCY_META_KEY}"] must be a JSON string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
  duplicate: REFUSAL_WORDS.duplicate,
  unavailable: REFUSAL_WORDS.unavailable,
} as const;

const NOT_RUN = 'The tool was NOT run.';

/**
 * The refusal result a fenced server answers with: `isError`, a text saying why, and the refusal
 * object (the refusal's written form, docs/refusal-spec.md) in `_meta["io.leasehold/refusal"]`
 * (docs/mcp.md, "The refusal object"), exactly as the Java `McpRefusal.toResult()` writes it.
 * `missing` says where the token goes in `_meta`.
 */
export function refusalResult(reason: RefusalReason, details: RefusalDetails = {}): ToolResult {
  return resultOf(refusal(reason, reason === 'missing' ? { ...details, detail: REFUSAL_MESSAGES.missing } : details));
}

/** A refusal as the tool result that carries it. */
function resultOf(r: Refusal): ToolResult {
  return {
    content: [{ type: 'text', text: `Refused by Leasehold (${r.reason}): ${r.message}. ${NOT_RUN}` }],
    isError: true,
    _meta: { [REFUSAL_META_KEY]: writtenRefusal(r) },
  };
}

/** Logs the fence's own failure; a hostile value that cannot even be printed is not. */
function logUnavailable(message: string, e: unknown): void {
  try {
    console.error(message, e);
  } catch {
    console.error(message, '(the error could not be printed)');
  }
}

/**
 * The refusal a guard's error stands for; anything else, including an error whose very type cannot
 * be checked (a Proxy whose traps throw), is the fence's own failure: `unavailable`.
 */
function refusedResult(e: unknown, token: FencingToken): ToolResult {
  try {
    return classified(e, token);
  } catch {
    logUnavailable('leasehold: refused an MCP call as unavailable: the guard threw something that could not be inspected:', e);
    return refusalResult('unavailable', { token });
  }
}

function classified(e: unknown, token: FencingToken): ToolResult {
  const r = refusalOf(e, token);
  // The verifier or the mark store failed (a lock timeout, a lost connection, a bug): the detail
  // may name tables and SQL states, so it goes to the server's log, never to the caller.
  if (r.reason === 'unavailable') logUnavailable('leasehold: refused an MCP call as unavailable: the fence could not check it:', e);
  return resultOf(r);
}

/**
 * Fences an MCP tool handler for `@modelcontextprotocol/sdk` servers (`server.registerTool(name,
 * fencedToolConfig(config), fenceTool(options, handler))`), with the Java `McpToolFence`'s
 * semantics and refusal result: read `_meta["io.leasehold/token"]`, verify, check scope, admit;
 * on any refusal answer an `isError` result with the reason in `_meta["io.leasehold/refusal"]`,
 * and never run the body. A failure of the guard itself (any throwable) is refused as
 * `unavailable`, its detail logged. An idempotency key in `_meta`, if any, must be a string of 1
 * to 200 characters (else `malformed`); this package keeps no journal, so calls are not replayed.
 */
export function fenceTool<A, E extends ToolExtra, R extends ToolResult>(
  options: FenceToolOptions<A>,
  handler: (args: A, extra: E) => R | Promise<R>,
): (args: A, extra: E) => Promise<R | ToolResult> {
  return async (args, extra) => {
    let meta: Record<string, unknown> | undefined;
    let text: unknown;
    try {
      meta = extra?._meta;
      text = meta?.[TOKEN_META_KEY];
    } catch {
      // Reading _meta threw (a revoked Proxy, a throwing getter): no token text was given.
      return refusalResult('malformed', { detail: REFUSAL_MESSAGES.tokenNotAString });
    }
    if (text === undefined || text === null) {
      if (options.acceptUnfencedCalls === true) {
        console.warn('leasehold: unfenced MCP call accepted (migration switch on)');
        return handler(args, extra);
      }
      return refusalResult('missing');
    }
    if (typeof text !== 'string') return refusalResult('malformed', { detail: REFUSAL_MESSAGES.tokenNotAString });
    let token: FencingToken;
    try {
      token = parseToken(text);
    } catch (e) {
      return refusalResult('malformed', { detail: e instanceof Error ? e.message : String(e) });
    }
    let key: unknown;
    try {
      key = meta?.[IDEMPOTENCY_META_KEY];
    } catch {
      return refusalResult('malformed', { token, detail: REFUSAL_MESSAGES.badIdempotencyKey });
    }
    if (key !== undefined && key !== null
      && !(typeof key === 'string' && key.length > 0 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH)) {
      return refusalResult('malformed', { token, detail: REFUSAL_MESSAGES.badIdempotencyKey });
    }
    let admission: unknown;
    try {
      const scope = options.scope;
      admission = await options.guard.admit(text, scope === undefined ? undefined : strictScope((t) => scope(t.key, args)));
    } catch (e) {
      return refusedResult(e, token);
    }
    if (admission === null || typeof admission !== 'object') {
      // A guard that answers without an admission has proved nothing: the body does not run.
      logUnavailable('leasehold: refused an MCP call as unavailable: the guard returned no admission:', admission);
      return refusalResult('unavailable', { token });
    }
    return handler(args, extra);
  };
}

/** The note a fenced tool's description ends with (the same words as the Java `McpFencing.toolNote`). */
export function toolNote(tokenRequired: boolean): string {
  return `Fenced by Leasehold: ${tokenRequired ? 'every call must carry' : 'a call should carry'} the calling run's ` +
    `lease token (its text form, lh2.…) as a JSON string in params._meta["${TOKEN_META_KEY}"]; ` +
    `${tokenRequired ? 'a call without one, or' : 'a call'} with a stale or invalid token is refused and the tool does not run.`;
}

/**
 * A tool's `registerTool` config as a fenced server lists it in `tools/list`: the description ends
 * with `toolNote`, and `_meta["io.leasehold/fence"]` says that a token is needed and where it
 * goes, as the Java `McpToolFence` lists its tools. Pass the same `acceptUnfencedCalls` as to
 * `fenceTool`.
 */
export function fencedToolConfig<C extends { description?: string; _meta?: Record<string, unknown> }>(
  config: C,
  options: { readonly acceptUnfencedCalls?: boolean } = {},
): C {
  const required = options.acceptUnfencedCalls !== true;
  const note = toolNote(required);
  const description = config.description === undefined || config.description.trim() === ''
    ? note : `${config.description}\n\n${note}`;
  return {
    ...config,
    description,
    _meta: {
      ...(config._meta ?? {}),
      [FENCE_META_KEY]: {
        tokenRequired: required,
        tokenMetaKey: TOKEN_META_KEY,
        idempotencyMetaKey: IDEMPOTENCY_META_KEY,
        refusalMetaKey: REFUSAL_META_KEY,
      },
    },
  };
}

/** Request params with the run's token attached, for `client.callTool(withToken(params, token))`. */
export function withToken<P extends { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }>(
  params: P,
  token: string,
): P {
  return { ...params, _meta: { ...(params._meta ?? {}), [TOKEN_META_KEY]: token } };
}
