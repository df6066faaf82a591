//! TypeScript types — errors: the `name`s and fields of every rejection.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const ERRORS: &'static str = r#"
/** The `name` of every error Lectern rejects with. */
export type LecternErrorName =
  | 'NotFoundError' | 'RateLimitError' | 'ConnectionError' | 'ApiError' | 'AuthError'
  | 'ProtocolError' | 'ToolError' | 'StorageError' | 'ConfigError' | 'AbortError'
  | 'TimeoutError' | 'MaxIterationsError' | 'MaxToolCallsError' | 'ConversationBusyError'
  | 'EmbedderMismatchError' | 'ApprovalPendingError' | 'AlreadyResolvedError' | 'ApprovalExpiredError'
  | 'CallNotPendingError' | 'InvalidArgumentsError' | 'InternalError';

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
  /** The limit that was hit (`MaxIterationsError`, `MaxToolCallsError`). */
  limit?: number;
  /** The timeout that expired (`TimeoutError`). */
  afterMs?: number;
  /** On a failed `send`: answer text streamed before the failure (shown, not stored). */
  partialText?: string;
  /** On a failed `send`: model calls made. */
  steps?: number;
  /** On a failed `send`: tool calls completed before the failure (their steps are stored). */
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
  /** The panic that stopped Lectern, and where (`InternalError`: every later call is refused; reload the page). */
  panic?: string;
}
"#;
