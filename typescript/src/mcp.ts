import { StaleFenceError, TokenVerificationError } from './errors.js';
import type { FenceGuard } from './guard.js';
import { type FencingToken, type LeaseKey, parseToken } from './token.js';

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

/** Why a call was refused: the same reasons as the Java `McpRefusal.Reason`, in wire form. */
export type RefusalReason =
  | 'superseded' | 'lease_lost' | 'missing' | 'malformed' | 'forged' | 'expired'
  | 'out_of_scope' | 'duplicate' | 'unavailable';

/** The fence's own words, the same in Java (`McpRefusal`, `McpFencing`) and in docs/mcp-refusal-vectors.json. */
export const REFUSAL_MESSAGES = {
  missing: `the call carries no Leasehold token. This tool needs the calling run's lease token, in its text form (lh2.…), as a JSON string in params._meta["${TOKEN_META_KEY}"] of every tools/call; the lease store that granted the run's lease issues it (docs/token-spec.md)`,
  tokenNotAString: `the token in params._meta["${TOKEN_META_KEY}"] must be a JSON string holding the token's text form (lh2.…)`,
  badIdempotencyKey: `the idempotency key in params._meta["${IDEMPOTENCY_META_KEY}"] must be a JSON string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
  duplicate: 'a call of this run with the same tool and idempotency key is still running; retry once it finished to get its result',
  unavailable: "the server could not check this call: its token verifier, mark store or journal failed (the details are in the server's log); try again later",
} as const;

const NOT_RUN = 'The tool was NOT run.';
/** The last millisecond of year 9999: later instants have no four-digit ISO-8601 form. */
const MAX_INSTANT_MILLIS = 253_402_300_799_999n;

/** An instant in the refusal's form (UTC, milliseconds), or undefined outside years 1970-9999. */
function iso(millis: bigint): string | undefined {
  return millis < 0n || millis > MAX_INSTANT_MILLIS ? undefined : new Date(Number(millis)).toISOString();
}

/** What a refusal says beyond its reason. */
export interface RefusalDetails {
  /** The token, when it could be read: its key and fence, and for `expired` its window. */
  readonly token?: FencingToken;
  /** The key's mark, for `superseded`. */
  readonly highestSeen?: bigint;
  /** The message of reasons without words of their own (the verifier's or the scope's). */
  readonly detail?: string;
}

/**
 * The refusal result a fenced server answers with: `isError`, a text saying why, and the refusal
 * object in `_meta["io.leasehold/refusal"]` (docs/mcp.md, "The refusal object"; fences as decimal
 * strings, instants in ISO-8601), exactly as the Java `McpRefusal.toResult()` writes it.
 */
export function refusalResult(reason: RefusalReason, details: RefusalDetails = {}): ToolResult {
  const { token, highestSeen, detail } = details;
  const window = reason === 'expired' ? token?.signature : undefined;
  const validFrom = window === undefined ? undefined : iso(window.validFrom);
  const validUntil = window === undefined ? undefined : iso(window.validUntil);
  let message: string;
  switch (reason) {
    case 'superseded':
      message = `a newer run of this session has been admitted (fence ${highestSeen ?? 'unknown'}), so this run must stop`;
      break;
    case 'missing':
    case 'duplicate':
    case 'unavailable':
      message = REFUSAL_MESSAGES[reason];
      break;
    case 'expired':
      message = 'the token is outside its validity window' +
        (validFrom !== undefined && validUntil !== undefined ? ` (${validFrom} to ${validUntil})` : '') +
        " at the server's time: the run's lease ended or stopped renewing, so this run must stop";
      break;
    default:
      message = detail === undefined || detail.trim() === '' ? 'refused' : detail;
  }
  const meta: Record<string, unknown> = { reason };
  if (token !== undefined) {
    meta['accountId'] = token.key.accountId;
    meta['sessionId'] = token.key.sessionId;
    meta['fence'] = token.fence.toString();
  }
  if (reason === 'superseded' && highestSeen !== undefined) meta['highestSeen'] = highestSeen.toString();
  if (validFrom !== undefined) meta['validFrom'] = validFrom;
  if (validUntil !== undefined) meta['validUntil'] = validUntil;
  meta['message'] = message;
  return {
    content: [{ type: 'text', text: `Refused by Leasehold (${reason}): ${message}. ${NOT_RUN}` }],
    isError: true,
    _meta: { [REFUSAL_META_KEY]: meta },
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
function refusalOf(e: unknown, token: FencingToken): ToolResult {
  try {
    return classified(e, token);
  } catch {
    logUnavailable('leasehold: refused an MCP call as unavailable: the guard threw something that could not be inspected:', e);
    return refusalResult('unavailable', { token });
  }
}

function classified(e: unknown, token: FencingToken): ToolResult {
  if (e instanceof StaleFenceError) return refusalResult('superseded', { token, highestSeen: e.highestFence });
  if (e instanceof TokenVerificationError) {
    const r: string = e.reason;
    const reason: RefusalReason =
      r === 'MALFORMED' ? 'malformed'
        : r === 'EXPIRED' || r === 'NOT_YET_VALID' ? 'expired'
          : r === 'OUT_OF_SCOPE' ? 'out_of_scope'
            : r === 'MISSING' ? 'missing'
              : r === 'UNAVAILABLE' ? 'unavailable' : 'forged';
    if (reason === 'unavailable') logUnavailable('leasehold: refused an MCP call as unavailable:', e);
    return refusalResult(reason, { token, detail: e.message });
  }
  // The verifier or the mark store failed (a lock timeout, a lost connection, a bug): the detail
  // may name tables and SQL states, so it goes to the server's log, never to the caller.
  logUnavailable('leasehold: refused an MCP call as unavailable: the fence could not check it:', e);
  return refusalResult('unavailable', { token });
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
      admission = await options.guard.admit(text, scope === undefined ? undefined : (t) => scope(t.key, args));
    } catch (e) {
      return refusalOf(e, token);
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
