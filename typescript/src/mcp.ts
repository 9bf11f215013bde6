import { StaleFenceError, TokenVerificationError } from './errors.js';
import type { FenceGuard } from './guard.js';
import { type FencingToken, type LeaseKey, parseToken } from './token.js';

/** The `_meta` key of a `tools/call` that carries the token (docs/mcp.md). */
export const TOKEN_META_KEY = 'io.leasehold/token';
/** The result `_meta` key of a refusal. */
export const REFUSAL_META_KEY = 'io.leasehold/refusal';

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

type Reason = 'superseded' | 'missing' | 'malformed' | 'forged' | 'expired' | 'out_of_scope';

function refusal(reason: Reason, message: string, token?: FencingToken, highestSeen?: bigint): ToolResult {
  const meta: Record<string, unknown> = { reason };
  if (token !== undefined) {
    meta['accountId'] = token.key.accountId;
    meta['sessionId'] = token.key.sessionId;
    meta['fence'] = Number(token.fence);
  }
  if (highestSeen !== undefined) meta['highestSeen'] = Number(highestSeen);
  meta['message'] = message;
  return {
    content: [{ type: 'text', text: `Refused by Leasehold (${reason}): ${message}. The tool was NOT run.` }],
    isError: true,
    _meta: { [REFUSAL_META_KEY]: meta },
  };
}

/**
 * Fences an MCP tool handler for `@modelcontextprotocol/sdk` servers (`server.registerTool(name,
 * config, fenceTool(options, handler))`), with the Java `McpToolFence`'s semantics and refusal
 * result: read `_meta["io.leasehold/token"]`, verify, check scope, admit; on any refusal answer
 * an `isError` result with the reason in `_meta["io.leasehold/refusal"]`, and never run the body.
 */
export function fenceTool<A, E extends ToolExtra, R extends ToolResult>(
  options: FenceToolOptions<A>,
  handler: (args: A, extra: E) => R | Promise<R>,
): (args: A, extra: E) => Promise<R | ToolResult> {
  return async (args, extra) => {
    const text = extra?._meta?.[TOKEN_META_KEY];
    if (text === undefined || text === null) {
      if (options.acceptUnfencedCalls === true) {
        console.warn('leasehold: unfenced MCP call accepted (migration switch on)');
        return handler(args, extra);
      }
      return refusal('missing', `the call carries no token in _meta["${TOKEN_META_KEY}"]`);
    }
    let token: FencingToken;
    try {
      if (typeof text !== 'string') throw new TokenVerificationError('MALFORMED', 'the token must be a JSON string');
      token = parseToken(text);
    } catch (e) {
      return refusal('malformed', (e as Error).message);
    }
    try {
      const scope = options.scope;
      await options.guard.admit(token, scope === undefined ? undefined : (t) => scope(t.key, args));
    } catch (e) {
      if (e instanceof StaleFenceError) return refusal('superseded', e.message, token, e.highestFence);
      if (e instanceof TokenVerificationError) {
        const reason: Reason =
          e.reason === 'MALFORMED' ? 'malformed'
            : e.reason === 'EXPIRED' || e.reason === 'NOT_YET_VALID' ? 'expired'
              : e.reason === 'OUT_OF_SCOPE' ? 'out_of_scope'
                : e.reason === 'MISSING' ? 'missing' : 'forged';
        return refusal(reason, e.message, token);
      }
      throw e;
    }
    return handler(args, extra);
  };
}

/** Request params with the run's token attached, for `client.callTool(withToken(params, token))`. */
export function withToken<P extends { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }>(
  params: P,
  token: string,
): P {
  return { ...params, _meta: { ...(params._meta ?? {}), [TOKEN_META_KEY]: token } };
}
