//! TypeScript types — errors: the `name`s and fields of every rejection.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const ERRORS: &'static str = r#"
/** The `name` of every error Lectern rejects with. */
export type LecternErrorName =
  | 'NotFoundError' | 'RateLimitError' | 'ConnectionError' | 'ApiError' | 'AuthError'
  | 'ProtocolError' | 'ToolError' | 'StorageError' | 'ConfigError' | 'AbortError'
  | 'TimeoutError' | 'MaxIterationsError' | 'MaxToolCallsError' | 'BudgetExceededError' | 'ConversationBusyError'
  | 'EmbedderMismatchError' | 'ApprovalPendingError' | 'AlreadyResolvedError' | 'ApprovalExpiredError'
  | 'CallNotPendingError' | 'InvalidArgumentsError' | 'StructuredOutputError' | 'ImportError' | 'InternalError';

/**
 * Why a `StorageError` happened: `quota` (the origin's storage is full), `aborted` (the
 * transaction aborted), `blocked` (a schema upgrade waited past `blockedTimeoutMs` for other
 * tabs), `closed` (the connection is closed: `close()`, or another tab opened a newer version),
 * `constraint` (a record with that key exists), `version` (the database is newer than this code),
 * `upgrade` (a schema upgrade step failed; the database stays at its old version), `data` (a
 * record could not be encoded or decoded), `unknown`. Whatever the reason, nothing of the failed
 * write was stored.
 */
export type StorageReason =
  | 'quota' | 'aborted' | 'blocked' | 'closed' | 'constraint' | 'version' | 'upgrade' | 'data' | 'unknown';

/** A rejection from Lectern: a real `Error` whose `name` says its kind, with the kind's details. */
export interface LecternError extends Error {
  name: LecternErrorName;
  /** HTTP status (`ApiError`, `AuthError`). */
  status?: number;
  /** Response body excerpt (`ApiError`, `AuthError`). */
  body?: string;
  /** Requested wait (`RateLimitError`). */
  retryAfterMs?: number | null;
  /** What was not found (`NotFoundError`). */
  what?: string;
  /** The id that was not found (`NotFoundError`). */
  id?: string;
  /** The limit that was hit (`MaxIterationsError`, `MaxToolCallsError`), or which one (`BudgetExceededError`: `tokens` or `costUsd`). */
  limit?: number | 'tokens' | 'costUsd';
  /** The timeout that expired (`TimeoutError`). */
  afterMs?: number;
  /** On a failed `send`: answer text streamed before the failure (shown, not stored). */
  partialText?: string;
  /** On a failed `send`: model calls made. */
  steps?: number;
  /** On a failed `send`: tool calls settled before the failure — with a step cut off by a timeout, its running calls answered interrupted and unstarted ones not run (their steps are stored). */
  toolCalls?: ToolCallRecord[];
  /** The conversation that was busy (`ConversationBusyError`). */
  conversationId?: string;
  /** How long `send` waited (`ConversationBusyError`). */
  waitedMs?: number;
  /** The paused turn (`ApprovalPendingError`, `AlreadyResolvedError`, `ApprovalExpiredError`, `CallNotPendingError`). */
  turnId?: string;
  /** Where the turn stands: `resolving`, `resolved`, `cancelled` or `expired` (`AlreadyResolvedError`). */
  state?: string;
  /** When the approval ran out (`ApprovalExpiredError`). */
  expiredAt?: number;
  /** The call that is not pending (`CallNotPendingError`). */
  callId?: string;
  /** The tool (`InvalidArgumentsError`, `ToolError`). */
  tool?: string;
  /** Why storage failed (`StorageError`). */
  reason?: StorageReason;
  /** Whose budget (`BudgetExceededError`): the `turn`'s or the `conversation`'s. */
  scope?: 'turn' | 'conversation';
  /** `BudgetExceededError`: the `max` of `tokens` or `costUsd`, what was `spent` in that scope, and the `next` request's estimated input (tokens or cost). */
  max?: number;
  spent?: number;
  next?: number;
  /** On a failed `send`: tokens used before the failure (an aborted or broken-off call estimated, `estimated: true`). */
  usage?: Usage;
  /** On a failed `send`: what its model requests sent off the device (a refused connection sent nothing). */
  egress?: EgressEntry[];
  /** The second answer, which did not match `send`'s `responseSchema` either (`StructuredOutputError`; nothing was stored). */
  text?: string;
  /** Why it did not match: not JSON, or the first field that breaks the schema (`StructuredOutputError`). */
  validationError?: string;
  /** Where the input is invalid, e.g. `messages[3].tool_call_id` (`ImportError`; `''` for the input as a whole). */
  path?: string;
  /** The panic that stopped Lectern, and where (`InternalError`: every later call is refused; reload the page). */
  panic?: string;
}
"#;
