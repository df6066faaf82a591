//! TypeScript types — events: what `onEvent` and `stream()` carry.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const EVENTS: &'static str = r#"
/** Fields every event carries. */
export interface EventBase {
  conversationId: string;
  turnId: string;
}

/** A model call begins (1, 2, ...). */
export interface StepStartEvent extends EventBase { type: 'stepStart'; step: number; }
/** A piece of the answer, in order, before `send` resolves. */
export interface TextDeltaEvent extends EventBase { type: 'textDelta'; text: string; }
/** A piece of the model's reasoning ("thinking"), in order, before its answer; only with `showThinking: true`. */
export interface ReasoningDeltaEvent extends EventBase { type: 'reasoningDelta'; text: string; }
/** A piece of a tool call the model is writing (empty `argumentsDelta` when arguments are redacted). */
export interface ToolCallDeltaEvent extends EventBase {
  type: 'toolCallDelta';
  index: number;
  callId?: string;
  toolName?: string;
  argumentsDelta: string;
}
/**
 * A tool is about to run. `arguments` has the shape of a pending call's (`PendingCall.arguments`): an
 * object, or `null` when the model's text is not a JSON object (the call then fails as invalid);
 * `argumentsText` is that text exactly. Both are redacted as configured.
 */
export interface ToolInvocationEvent extends EventBase { type: 'toolInvocation'; toolName: string; arguments: Record<string, unknown> | null; argumentsText: string; callId: string; }
/** A tool finished, failed or was refused. */
export interface ToolResultEvent extends EventBase {
  type: 'toolResult';
  toolName: string;
  callId: string;
  result: string | null;
  error: string | null;
  durationMs: number;
  cached: boolean;
  /** How many times the tool ran: more than 1 after retries, 0 if it did not run. */
  attempts: number;
  /** What the tool reports besides its result; `search_book`: `{ query, resultCount, results }`. */
  details?: { query: string; resultCount: number; results: SearchResult[] } | Record<string, unknown>;
}
/** A model call ended. */
export interface StepFinishEvent extends EventBase { type: 'stepFinish'; step: number; finishReason: string; toolCalls: number; }
/** Tokens used by one model call. */
export interface TokenUsageEvent extends EventBase {
  type: 'tokenUsage';
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd?: number;
  /** The provider reported no usage: the counts are Lectern's estimate (see docs/api.md, Token estimate). */
  estimated: boolean;
}
/** The turn paused: these calls wait for a decision (`send` resolves `awaitingApproval`). */
export interface ApprovalRequestedEvent extends EventBase { type: 'approvalRequested'; calls: PendingCall[]; expiresAt: number; }
/** The turn finished with this answer. */
export interface FinishEvent extends EventBase {
  /** Set when an instance in another tab on the same `dbName` answered (see docs/api.md, Events). */
  remote?: true;
  type: 'finish';
  text: string;
  /** The answer parsed as JSON, when `send` had a `responseSchema`. */
  data?: unknown;
  /** The book passages the answer was given, in book order (absent when none). */
  sources?: Source[];
  /** The answer checked against its sources, when it has any. */
  sourceCheck?: SourceCheck;
  /** Set when the answer is quotes from the book, not a model's words. */
  quoted?: Quoted;
}
/** Something worth knowing that does not stop the turn. `contextOverflow`: the request is larger than `modelProfile.contextLength` even with only the latest message; it is sent anyway. `budgetUnpriced`: a `maxCostUsd` budget is set but the model has no price, so cost is not checked. `contextSummaryFailed`: older history could not be summarised and is left out of this request. `contextSummaryNotStored`: a summary was made but could not be stored. `eventsNotRecorded`: with `recordEvents`, the turn's events could not be stored. `answeredWithQuotes`: the model failed before writing and the answer quotes the book instead (`retrieval.quoteFallback`). */
export interface WarningEvent extends EventBase { type: 'warning'; code: 'contextOverflow' | 'budgetUnpriced' | 'contextSummaryFailed' | 'contextSummaryNotStored' | 'eventsNotRecorded' | 'answeredWithQuotes'; message: string; }
/** `context: { strategy: 'summarize' }` folded older messages into the stored summary (one event a summary call), or, with `fallback`, could not and left them out. */
export interface ContextCompressedEvent extends EventBase { type: 'contextCompressed'; summarizedMessages: number; throughSeq?: number; summaryTokens: number; fallback?: string; }
/** The turn failed; `send` rejects with the same error. */
export interface ErrorEvent extends EventBase { type: 'error'; name: LecternErrorName; message: string; }

/** A headless run ended and is stored (`runs()`); a `'proposed'` one waits for `reviewRun` (`turnId` is empty). */
export interface RunFinishedEvent extends EventBase { type: 'runFinished'; runId: string; status: RunRecord['status']; remote?: true; }

/** A tool set the conversation's working state, now stored, or the host called `setWorkingState` (`turnId` empty); `remote: true` when an instance in another tab on the same `dbName` did. */
export interface WorkingStateEvent extends EventBase { type: 'workingState'; state: Record<string, unknown> | null; remote?: true; }

/** Everything `onEvent` receives; switch on `type`. */
export type LecternEvent =
  | StepStartEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ToolCallDeltaEvent
  | ToolInvocationEvent
  | ToolResultEvent
  | TokenUsageEvent
  | StepFinishEvent
  | ApprovalRequestedEvent
  | FinishEvent
  | RunFinishedEvent
  | WorkingStateEvent
  | WarningEvent
  | ContextCompressedEvent
  | ErrorEvent;
"#;
