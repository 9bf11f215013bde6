export { TokenVerificationError, StaleFenceError, MarkStoreError, type TokenRefusal } from './errors.js';
export {
  TEXT_PREFIX, MAX_TEXT_LENGTH, parseToken, isOwnToken, formatToken, signedContent, unsigned, keyName,
  type FencingToken, type LeaseKey, type TokenSignature,
} from './token.js';
export { parseVerificationKey, parseSigningKey, stripKeyText, TokenKeySet, type VerificationKey, type SigningKey } from './keys.js';
export { signedBy, trustEveryWriter, verifyHeader, TOKEN_HEADER, type TokenVerifier, type SignedVerifierOptions } from './verify.js';
export { InMemoryFenceGuard, verifyInScope, type FenceGuard, type Admission, type Scope, type InMemoryGuardOptions } from './guard.js';
export { PostgresFenceGuard, type PostgresGuardOptions, type PgPool, type PgClient } from './postgres.js';
export {
  fenceTool, fencedToolConfig, toolNote, refusalResult, withToken, REFUSAL_MESSAGES,
  TOKEN_META_KEY, IDEMPOTENCY_META_KEY, REFUSAL_META_KEY, FENCE_META_KEY, MAX_IDEMPOTENCY_KEY_LENGTH,
  type FenceToolOptions, type ToolResult, type ToolExtra, type RefusalReason, type RefusalDetails,
} from './mcp.js';
export {
  refusal, refusalOf, writtenRefusal, REFUSAL_ACTIONS, TOKEN_REFUSAL_REASONS, REFUSAL_WORDS,
  type Refusal, type RefusalAction,
} from './refusal.js';
export {
  AgentToolFence, LeaseLostError, RunStop, RunStoppedError, idempotencyKeyArgument, tokenTextOf,
  type AgentToolFenceOptions, type AgentToolOutcome, type FencedRun, type RunOrToken, type ToolScope,
} from './agent.js';
export { InMemoryToolJournal, type ToolJournal, type JournalBegin } from './journal.js';
