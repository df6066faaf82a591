//! TypeScript types — the agent layers, tools, mentions and `validateConfig()`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const AGENT: &'static str = r#"
/** The persona layer. */
export interface Persona {
  /** System prompt text (may use `{{variables}}`); overrides `prompt`. */
  systemPrompt?: string;
  /** Name of a prompt template (default `conversation_system_prompt`). */
  prompt?: string;
  temperature?: number;
  /** The tools this persona uses (default: every allowed tool). */
  tools?: string[];
  /** The most tokens one answer may have (`max_tokens`); wins over the model profile's. */
  maxOutputTokens?: number;
}

/** The model-profile layer. */
export interface ModelProfile {
  /** Context window in tokens: each request's history is cut to fit it, after the system message, the tool definitions and the room kept for the answer (`maxOutputTokens`, else a quarter of the window up to 4,096). */
  contextLength?: number;
  /** Default temperature for this model. */
  temperature?: number;
  /** The most tokens one answer may have (`max_tokens`); wins over the provider's `maxTokens`. */
  maxOutputTokens?: number;
}

/** Limits of one turn; past one, the turn rejects with a typed error carrying what was done. */
export interface RunLimits {
  /** Model calls per turn (default 10; `MaxIterationsError`). */
  maxIterations?: number;
  /** Tool calls per turn (default 10; `MaxToolCallsError`). */
  maxToolCalls?: number;
  /** The whole turn (default 30000; `TimeoutError`). */
  turnTimeoutMs?: number;
  /** One tool run, for tools without their own `timeoutMs` (default 10000). */
  toolTimeoutMs?: number;
  /** How long a `send` waits for another turn on the same conversation — in this tab or, with `dbName`, any tab (default: no limit; `ConversationBusyError`). */
  lockWaitMs?: number;
}

/**
 * Which history the model sees. Tool calls are never split from their results.
 * `summarize`: once history passes `maxTokens`, everything but the newest `keepRecent`
 * messages (default 6) is summarised by the model, stored, and sent in the system message;
 * the summary is extended, not redone, as history grows (`contextCompressed` events).
 */
export type ContextStrategy =
  | { strategy: 'fullHistory'; maxMessages: number }
  | { strategy: 'tokenBudget'; maxTokens: number }
  | { strategy: 'summarize'; maxTokens: number; keepRecent?: number };

/** A JSON Schema (an object schema for tool parameters). */
export type JsonSchema = { [keyword: string]: unknown };

/** What a tool's `execute` gets besides its arguments. */
export interface ToolContext {
  readonly conversationId: string;
  /** From `Lectern.open({ userId })` or `send(..., { userId })`; never from the model. */
  readonly userId: string | null;
  /** Aborted when the turn is aborted or the tool times out. */
  readonly signal: AbortSignal;
  /** Replaces the conversation's working state, shown to the model from the next call on. */
  setWorkingState(state: Record<string, unknown> | null): void;
}

/** A registered tool as the model sees it (`toolDefinitions`). */
export interface ToolDefinition {
  name: string;
  /** What the tool does, for the model (and for a person approving a call). */
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** A tool for `registerTool`. */
export interface ToolSpec<Args = Record<string, unknown>> {
  /** 1–64 characters of a-z, A-Z, 0-9, _ and -. */
  name: string;
  description: string;
  /** JSON Schema of the arguments object; arguments are checked against it before `execute` runs. */
  parameters: JsonSchema;
  /** Returns (or resolves with) any JSON value; a string reaches the model as is. Throw to report an error to the model. */
  execute(args: Args, ctx: ToolContext): unknown;
  /** Default `limits.toolTimeoutMs`. */
  timeoutMs?: number;
  /** Reuse results for the same arguments this long (off by default). */
  cacheTtlMs?: number;
  /**
   * Whose calls share a cached result: `'user'` (default: the turn's `userId`), `'conversation'`,
   * or `'global'` (opt-in, for results that depend on nobody).
   */
  cacheScope?: CacheScope;
  /**
   * For idempotent tools: run again after a thrown error or a timeout, up to this many times (0–5, default 0);
   * never after an abort or invalid arguments. The record and the `toolResult` event say how many `attempts`.
   */
  retries?: number;
  /** Wait this long before each retry (default 0). */
  retryDelayMs?: number;
  /** It only reads (default false): it runs without asking unless `approvals` says otherwise (a tool that is not read-only asks by default), and a headless run that ran only such tools ends `'completed'`, not `'proposed'`. */
  readOnly?: boolean;
}

/** Whose calls share a tool's cached results. */
export type CacheScope = 'user' | 'conversation' | 'global';

/** Something of the host's the user referred to. */
export interface Mention {
  type: string;
  id: string;
}

/** What `validateConfig()` reports. */
export interface ConfigReport {
  valid: boolean;
  errors: string[];
  warnings: string[];
}
"#;
