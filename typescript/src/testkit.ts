// The agent-framework contract for Node, the twin of the Java testkit's AgentFrameworkContract:
// whatever carries a run's tool calls to its tools, a superseded run's call never reaches the tool,
// a run whose lease is lost is stopped before anything runs, a retried call runs once, and a
// forged or out-of-scope token runs nothing. It registers node:test tests; import it from tests only.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { test as nodeTest } from 'node:test';
import { AgentToolFence, LeaseLostError, type RunOrToken, type RunStop } from './agent.js';
import { type FenceGuard, InMemoryFenceGuard } from './guard.js';
import { TokenKeySet } from './keys.js';
import { type FencingToken, formatToken, type LeaseKey, signedContent } from './token.js';
import type { TokenVerifier } from './verify.js';
import { signedBy } from './verify.js';

/**
 * An agent whose model calls one tool, `record({ text, idempotencyKey? })`, as the contract says,
 * through the framework's fenced path with the fence the contract hands over.
 */
export interface AgentHarness {
  /**
   * One model turn of `run` in which the model calls the tool once with `text` (and
   * `idempotencyKey` as the argument of that name, if given). Resolves with what the model read
   * as the tool's result; rejects when the framework's run was stopped (a refusal).
   */
  call(run: RunOrToken, text: string, idempotencyKey?: string): Promise<unknown>;
  /** What the tool recorded, in order: what reached "the world". */
  effects(): readonly string[];
  /** Stops what the harness started. */
  close?(): void | Promise<void>;
}

/** What the contract hands a harness: the fence to put on the framework's tools. */
export interface HarnessSetup {
  /**
   * The fence: its guard verifies the contract's tokens, and its scope gives a text `account: …`
   * to that account only. The harness passes the tool's `idempotencyKey` argument as the call's
   * idempotency key (`idempotencyKeyArgument('idempotencyKey')` of the framework's module).
   */
  readonly fence: AgentToolFence;
  /** Its guard, for a harness that fences elsewhere (an MCP server's `fenceTool`). */
  readonly guard: FenceGuard;
  /** The scope in `fenceTool`'s form. */
  readonly scope: (key: LeaseKey, args: unknown) => boolean;
}

export interface AgentFrameworkContractOptions {
  /** The framework's name, in the tests' names. */
  readonly name: string;
  /** A fresh agent on a fresh fence. */
  readonly harness: (setup: HarnessSetup) => AgentHarness | Promise<AgentHarness>;
  /** The guard under the fence; default a fresh `InMemoryFenceGuard`. */
  readonly guard?: (verifier: TokenVerifier) => FenceGuard;
  /** `node:test`'s `test`, or one with its signature. */
  readonly test?: (name: string, fn: () => Promise<void>) => unknown;
}

/** The contract's scope: a text `acct-7: …` touches account acct-7's things; other texts are the run's own. */
function contractScope(key: LeaseKey, args: unknown): boolean {
  const text = args !== null && typeof args === 'object' ? (args as { text?: unknown }).text : undefined;
  const owner = typeof text === 'string' ? /^([\w-]+):/.exec(text)?.[1] : undefined;
  return owner === undefined || owner === key.accountId;
}

/** HMAC keys and tokens signed with them, valid for an hour. */
class Signer {
  readonly keyId = `contract-${randomUUID().slice(0, 8)}`;
  readonly #secret = randomBytes(32);

  verificationKeys(): TokenKeySet {
    return TokenKeySet.parse(`leasehold-verify-key:v1:hmac-sha256:${this.keyId}:${this.#secret.toString('base64url')}`);
  }

  token(key: LeaseKey, fence: bigint, secret: Buffer = this.#secret): string {
    const now = BigInt(Date.now());
    const t: FencingToken = {
      key, fence, runId: randomUUID(),
      signature: { validFrom: now - 60_000n, validUntil: now + 3_600_000n, keyId: this.keyId, value: '' },
    };
    const value = createHmac('sha256', secret).update(signedContent(t)).digest('base64url');
    return formatToken({ ...t, signature: { ...t.signature!, value } });
  }

  /** A token signed with another secret under this key id: forged. */
  forged(key: LeaseKey, fence: bigint): string {
    return this.token(key, fence, randomBytes(32));
  }
}

/**
 * Registers the contract's tests for a framework: superseded, lost, retried, a newer run reusing
 * a key, forged, out of scope. Each test builds a fresh fence (the contract's verifier, scope and
 * idempotency keys) and a fresh harness on it, and checks what reached the tool and which
 * refusal the fence made.
 */
export function agentFrameworkContract(options: AgentFrameworkContractOptions): void {
  const test = options.test ?? nodeTest;
  const session = (): LeaseKey => ({ accountId: 'acct-7', sessionId: `chat-${randomUUID()}` });

  async function withHarness(body: (h: AgentHarness, s: Signer, stops: RunStop[], fence: AgentToolFence) => Promise<void>): Promise<void> {
    const signer = new Signer();
    const verifier = signedBy(signer.verificationKeys());
    const guard = options.guard?.(verifier) ?? new InMemoryFenceGuard({ verifier });
    const stops: RunStop[] = [];
    const fence = new AgentToolFence({
      guard, scope: (key, _tool, args) => contractScope(key, args), onStop: (s) => stops.push(s),
    });
    const h = await options.harness({ fence, guard, scope: contractScope });
    try {
      await body(h, signer, stops, fence);
    } finally {
      await h.close?.();
    }
  }

  test(`${options.name}: a superseded run's call never reaches the tool`, () => withHarness(async (h, s, stops, fence) => {
    const key = session();
    const desktop = s.token(key, 1n);
    const browser = s.token(key, 2n);
    await h.call(desktop, 'desktop draft');
    await fence.startRun(browser);
    await h.call(browser, 'browser plan');
    await assert.rejects(h.call(desktop, 'desktop late'), 'the superseded run is stopped');
    assert.deepEqual(h.effects(), ['desktop draft', 'browser plan']);
    assert.deepEqual(stops.map((r) => r.refusal.reason), ['superseded']);
    assert.equal(stops[0]!.refusal.highestSeen, 2n);
  }));

  test(`${options.name}: a run whose lease is lost is stopped before its call runs`, () => withHarness(async (h, s, stops) => {
    const text = s.token(session(), 1n);
    const lost = { token: (): string => { throw new LeaseLostError(text, 'renewal failed'); } };
    await assert.rejects(h.call(lost, 'after the loss'));
    assert.deepEqual(h.effects(), []);
    assert.deepEqual(stops.map((r) => r.refusal.reason), ['lease_lost']);
  }));

  test(`${options.name}: a call retried with the same idempotency key runs once`, () => withHarness(async (h, s) => {
    const run = s.token(session(), 1n);
    const first = await h.call(run, 'pay invoice 42', 'invoice-42');
    const retried = await h.call(run, 'pay invoice 42', 'invoice-42');
    await h.call(run, 'pay invoice 43', 'invoice-43');
    assert.deepEqual(h.effects(), ['pay invoice 42', 'pay invoice 43']);
    assert.deepEqual(retried, first, 'the retry is answered with the first call\'s result');
  }));

  test(`${options.name}: a newer run reusing an idempotency key runs its own call`, () => withHarness(async (h, s, _stops, fence) => {
    const key = session();
    const desktop = s.token(key, 1n);
    const browser = s.token(key, 2n);
    await h.call(desktop, 'desktop pays invoice 42', 'invoice-42');
    await fence.startRun(browser);
    await h.call(browser, 'browser pays invoice 42', 'invoice-42');
    await h.call(browser, 'browser pays invoice 42', 'invoice-42');
    assert.deepEqual(h.effects(), ['desktop pays invoice 42', 'browser pays invoice 42']);
  }));

  test(`${options.name}: a forged token runs nothing`, () => withHarness(async (h, s, stops) => {
    await assert.rejects(h.call(s.forged(session(), 9n), 'forged write'));
    await assert.rejects(h.call('lh2.not-a-token', 'malformed write'));
    assert.deepEqual(h.effects(), []);
    assert.deepEqual(stops.map((r) => r.refusal.reason), ['forged', 'malformed']);
  }));

  test(`${options.name}: a call out of its token's scope runs nothing`, () => withHarness(async (h, s, stops) => {
    const run = s.token(session(), 1n);
    await assert.rejects(h.call(run, 'victim-9: read the mail'));
    assert.deepEqual(h.effects(), []);
    assert.deepEqual(stops.map((r) => r.refusal.reason), ['out_of_scope']);
    await h.call(run, 'acct-7: my own note');
    assert.deepEqual(h.effects(), ['acct-7: my own note'], 'a scope refusal proves nothing against the run');
  }));
}
