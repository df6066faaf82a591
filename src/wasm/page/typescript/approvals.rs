//! TypeScript types — human in the loop: approval policies, paused turns, decisions, headless runs.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const APPROVALS: &'static str = r#"
/** What happens to a call of a tool: run it, pause the turn until a person decides, or refuse it. */
export type ApprovalPolicy = 'auto' | 'ask' | 'deny';

/** What a policy function learns besides the call's (schema-valid) arguments. */
export interface PolicyContext {
  toolName: string;
  conversationId: string;
  userId: string | null;
}

/** Approval policies. A function that throws or returns anything else refuses the call (`deny`). */
export interface ApprovalOptions {
  /** Policy of tools not listed (default: `'ask'` for a tool not declared `readOnly`, `'auto'` for a read-only one). */
  default?: ApprovalPolicy;
  /** Per tool: a policy, or a function of the call, e.g. reads `'auto'`, writes `'ask'`. */
  tools?: Record<string, ApprovalPolicy | ((args: Record<string, unknown>, ctx: PolicyContext) => ApprovalPolicy | Promise<ApprovalPolicy>)>;
  /** Approve every `'ask'` without asking (trusted or headless use); `'deny'` still refuses. */
  autoApprove?: boolean;
  /** How long a paused turn waits for decisions (default 86 400 000, a day). */
  ttlMs?: number;
  /** What a new message does to a turn waiting for approval (default `'refuse'`). */
  onNewMessage?: OnNewMessage;
}

/**
 * `'refuse'`: `send` rejects with `ApprovalPendingError` until the turn is resolved or cancelled.
 * `'reject'`: the waiting calls are answered `The user moved on without approving` (decision `'movedOn'`),
 * the paused turn is closed, and the new message runs as usual. A turn whose calls are running is still refused.
 */
export type OnNewMessage = 'refuse' | 'reject';

/** A call waiting for a person's decision. */
export interface PendingCall {
  callId: string;
  toolName: string;
  /** The arguments the model wrote (already valid against the tool's schema). */
  arguments: Record<string, unknown>;
}

/** A turn paused for approval (`pendingApprovals`). */
export interface PendingApproval {
  turnId: string;
  conversationId: string;
  calls: PendingCall[];
  createdAt: number;
  expiresAt: number;
}

/** A person's decision about one pending call. */
export type ApprovalDecision =
  | { callId: string; decision: 'approve' }
  /**
   * "Always allow": runs it, approves the other waiting calls of the same tool, and lets the tool run
   * without asking for the rest of the conversation (stored; `resetApprovals(conversationId)` revokes it).
   * A `'deny'` policy still refuses the tool.
   */
  | { callId: string; decision: 'approveAlways' }
  /** The model reads `User rejected this action` (plus `: reason`). */
  | { callId: string; decision: 'reject'; reason?: string }
  /** Runs with these arguments (validated against the tool's schema first); the history shows them. */
  | { callId: string; decision: 'edit'; arguments: Record<string, unknown> | string };

/** Options of `resolveApprovals`. */
export interface ResolveOptions {
  /** Aborting it cancels the resumed turn's model calls and running tools. */
  signal?: AbortSignal;
}

/** How a call came to run or not. */
export type ToolDecision =
  | 'auto' | 'approved' | 'approvedAlways' | 'rejected' | 'edited' | 'denied' | 'cancelled' | 'expired' | 'movedOn';

/** Input of `runHeadless`. */
export interface HeadlessOptions {
  /** Run in this conversation (default: a new one). */
  conversationId?: string;
  /** The user message that starts the run. */
  instruction: string;
  /** Offer only these tools (default: every allowed tool). */
  tools?: string[];
  /** Model calls allowed (default `limits.maxIterations`). */
  maxIterations?: number;
  /** Time the whole run may take (default 120 000). */
  timeoutMs?: number;
  /** Aborting it fails the run with `AbortError`. */
  signal?: AbortSignal;
}

/** A headless run, as `runHeadless` resolves and `runs()` / `run(id)` return it. */
export interface RunRecord {
  runId: string;
  conversationId: string;
  instruction: string;
  /** `'running'` only if the page closed while it ran; `'completed'`: answered, having run only read-only tools (or none); `'proposed'`: answered after running a tool that may have changed something, waiting for `reviewRun`, then `'accepted'` or `'rejected'`. */
  status: 'running' | 'completed' | 'proposed' | 'accepted' | 'rejected' | 'failed';
  /** The answer (or text streamed before a failure). */
  text: string;
  error: { name: LecternErrorName; message: string } | null;
  /** The messages the run added, in order. */
  log: Message[];
  toolCalls: ToolCallRecord[];
  usage: Usage;
  steps: number;
  startedAt: number;
  finishedAt: number | null;
  /** A person's review (`reviewRun`), once given. */
  review?: { decision: 'accept' | 'reject'; note?: string; at: number };
  /** What each model request of the run sent off the device. */
  egress: EgressEntry[];
}
"#;
