//! TypeScript types — stored records and what a turn resolves with: conversations, messages, tool-call records, usage.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const RECORDS: &'static str = r#"
/** A stored conversation. */
export interface Conversation {
  id: string;
  title: string;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  /** The book it is about, if any. */
  bookId?: string;
  /** See `setWorkingState`. */
  workingState?: Record<string, unknown>;
}

/** Input of `createConversation`. */
export interface NewConversation {
  title?: string;
  /** Binds the conversation to a book: its turns offer `search_book`, bounded by the reader's page. */
  bookId?: string;
}

/** Who a message comes from. */
export type Role = 'user' | 'assistant' | 'tool_result' | 'system';

/** A tool call the model asked for. */
export interface ToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model produced them (JSON text). */
  arguments: string;
}

/** A stored message. */
export interface Message {
  id: string;
  conversationId: string;
  /** Position in the conversation: 0, 1, 2, ... */
  seq: number;
  role: Role;
  content: string;
  /** On assistant messages that asked for tools. */
  toolCalls?: ToolCall[];
  /** On `tool_result` messages: the call answered. */
  toolCallId?: string;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  /** On an answer cut short by an abort: the text is what had streamed. */
  interrupted?: boolean;
  /** An assistant message's reasoning; `messages()` includes it only with `showThinking: true`. */
  reasoning?: ReasoningBlock[];
  /** An answer's sources: the book passages it was given, in book order (stored with it). */
  sources?: Source[];
  /** An answer with sources, checked against them. */
  sourceCheck?: SourceCheck;
  /** Set on an answer made of quotes from the book instead of a model's words. */
  quoted?: Quoted;
}

/**
 * Why an answer is quotes from the book: `provider`, the `quotes` provider answers so; `fallback`,
 * the model failed before writing (network off, endpoint down, a local model not loaded) and
 * `retrieval.quoteFallback` (default true) put the quotes in its place, `error` saying how it failed.
 */
export interface Quoted {
  reason: 'provider' | 'fallback';
  error?: string;
}

/** How a passage came to be in front of the model: the reader's page (always, in a book conversation), `alwaysRetrieve`, or a `search_book` call. */
export type SourceVia = 'readerPage' | 'alwaysRetrieve' | 'search_book';

/** A book passage an answer was given. */
export interface Source {
  /** The book. */
  bookId: string;
  /** The passage's first page. */
  startPage: number;
  /** Its last page (never past the reader's page when the turn ran). */
  endPage: number;
  /** The passage as the model read it. */
  text: string;
  via: SourceVia;
}

/**
 * An answer checked against its sources and the question: `unsupported` lists its names and content
 * words (stems of five letters) found in none of them. `grounded` is false when one of those is a name
 * (a word capitalised inside a sentence) or more than half of at least four content words: show
 * "not found in the book" beside the sources.
 */
export interface SourceCheck {
  grounded: boolean;
  unsupported?: string[];
  /**
   * Each sentence of the answer, checked against the passages it cites (`[2]` after it, the
   * numbers the system message gave its passages; all of them when it cites none). `grounded` is
   * false when any is unsupported. For a quoted answer, its quotes.
   */
  sentences?: SentenceCheck[];
  /** When no sentence is supported: the quoted answer from the same passages, to show under the model's, labelled. */
  quotedAnswer?: string;
}

/** One sentence of an answer and whether its passages support it. */
export interface SentenceCheck {
  /** The sentence as the answer has it, its citations included. */
  text: string;
  /** The passages it cites: indices into the answer's `sources`. */
  passages: number[];
  /** Its names and content words are in those passages: false means "not in the book". */
  supported: boolean;
}

/** One block of a model's reasoning. */
export interface ReasoningBlock {
  /** The reasoning text (empty for a redacted block). */
  text: string;
  /** Anthropic's signature over the block, which it needs to take the block back. */
  signature?: string;
  /** An Anthropic redacted block's opaque data. */
  redacted?: string;
}

/** A tool call made during a turn and what came of it (arguments redacted as configured). */
export interface ToolCallRecord {
  /** The provider's call id. */
  id: string;
  name: string;
  conversationId: string;
  turnId: string;
  /** Position among the turn's calls. */
  position: number;
  decision: ToolDecision;
  /** The arguments the model wrote, as an object (`null` when its text is not a JSON object). */
  originalArguments: Record<string, unknown> | null;
  /** The model's text of them (JSON text, redacted as configured). */
  originalArgumentsText: string;
  /** The arguments it ran with (differ when edited), as an object (`null` when not a JSON object): the shape of the `toolInvocation` event's. */
  arguments: Record<string, unknown> | null;
  /** Their text (JSON). */
  argumentsText: string;
  /** Why a person rejected it. */
  reason?: string;
  /** What the tool returned: the JSON value, or the text when the result is not JSON; `null` if it did not succeed. */
  result: unknown;
  /** The result's text, as the model read it in full (`null` if the tool did not succeed). */
  resultText: string | null;
  error: string | null;
  durationMs: number;
  cached: boolean;
  startedAt: number;
  finishedAt: number;
  /** How many times the tool ran: more than 1 after retries, 0 if it did not run (refused, invalid arguments, cached). */
  attempts: number;
  /** The cost in USD of the model step that asked for the call, where the price is known. */
  stepCostUsd?: number;
}

/** Tokens used, and their cost where the price is known. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd?: number;
  /** Present (`true`) when some counts were estimated because the provider reported none. */
  estimated?: true;
}

/** A spend limit (`budget`, `budgetPeriod`, `send`'s `budget`): tokens (input + output) and/or US dollars (needs the model's price). */
export interface Budget {
  maxTokens?: number;
  maxCostUsd?: number;
}

/** `usage(conversationId)`: every model call of every turn of a conversation — failed, aborted and paused ones included. */
export interface UsageTotals extends Usage {
  conversationId: string;
  /** Turns that made at least one model call. */
  turns: number;
}

/** What `send` and `resolveApprovals` resolve with: an answer, or a turn paused for approval. */
export type SendResult = CompletedTurn | AwaitingApproval;

/**
 * What `send` and `resolveApprovals` resolve with: a `SendResult`, or — only
 * with `friendlyErrors: true` — a `FailedSend`. Narrow on `success` (or `status`).
 */
export type SendOutcome = SendResult | FailedSend;

/** What `askOnce` resolves with: the answer and the turn's messages, which nothing stores (or, with `friendlyErrors: true`, a `FailedSend`). */
export type OneShotOutcome = (CompletedTurn & { messages: Message[] }) | FailedSend;

/** Fields of both outcomes of a turn. */
export interface TurnOutcomeBase {
  success: true;
  turnId: string;
  /** Every tool call of the turn so far. */
  toolCalls: ToolCallRecord[];
  usage: Usage;
  /** Model calls made in this turn. */
  steps: number;
  /** What each model request of the turn sent off the device, in order (see docs/api.md, Egress ledger). */
  egress: EgressEntry[];
}

/**
 * One model request of a turn — or one request a built-in tool sent (`purpose: 'tool'`): where it
 * went, how big it was, and what it carried.
 */
export interface EgressEntry {
  /** The turn's model call it belongs to (a summary call: the call it came before; a tool request: the call that asked for the tool). */
  step: number;
  /**
   * `summary`: a `context: { strategy: 'summarize' }` call; `correction`: the second try at a
   * `responseSchema` answer; `tool`: a built-in tool's request (no model, tokens or messages: see `toolRequest`).
   */
  purpose: 'answer' | 'summary' | 'correction' | 'tool';
  /** `custom`: a JS function provider (Lectern cannot see where it sends); a tool request: the service (`open-meteo`). */
  provider: 'openai' | 'anthropic' | 'custom' | 'open-meteo';
  /** Lower-case, no port; absent for `custom`. */
  host?: string;
  /** The provider was declared `local: true` (the model runs on the reader's device). */
  local?: true;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** The counts are Lectern's estimate (no usage reported, or the call failed). */
  estimated?: true;
  /** Characters of the system message (instructions, summary, passages, mentions). */
  systemChars: number;
  /** Messages sent besides the system message. */
  messages: number;
  /** Names of the tool definitions offered. */
  tools: string[];
  /** Book passages in it: the reader's pages and `alwaysRetrieve`'s (system message), `search_book` results. */
  passages: { bookId: string; startPage: number; endPage: number; via: SourceVia }[];
  /** Tool results in it. */
  toolResults: { callId: string; toolName: string; chars: number }[];
  /** Mentions resolved into its system message. */
  mentions: Mention[];
  /** A tool request's tool, call and URL (its query is what it carried, e.g. the place name). */
  toolRequest?: { toolName: string; callId: string; service: string; method: string; url: string };
}

/** The model answered. */
export interface CompletedTurn extends TurnOutcomeBase {
  status: 'completed';
  /** The assistant's final answer. */
  text: string;
  /** With `send`'s `responseSchema`: the answer parsed as JSON, valid against the schema. */
  data?: unknown;
  /** The book passages the answer was given, in book order (empty outside a book conversation). */
  sources: Source[];
  /** The answer checked against its sources, when it has any. */
  sourceCheck?: SourceCheck;
  /** Set when the answer is quotes from the book, not a model's words. */
  quoted?: Quoted;
}

/** Calls wait for a person: decide them with `resolveApprovals(turnId, ...)`. */
export interface AwaitingApproval extends TurnOutcomeBase {
  status: 'awaitingApproval';
  /** Empty while the turn waits. */
  text: '';
  pending: PendingCall[];
}
"#;
