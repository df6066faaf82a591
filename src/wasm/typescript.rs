//! The TypeScript types of the public API, written once by hand.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** An OpenAI-compatible chat-completions server (OpenAI, Ollama, LM Studio, vLLM, llama.cpp, ...). */
export interface OpenAIProviderConfig {
  kind: 'openai';
  /** Base URL up to and including `/v1`, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Model name sent with each request. */
  model: string;
  /** Bearer token; omit for servers that need none. */
  apiKey?: string;
  /** Stream the answer over SSE (default `true`). */
  stream?: boolean;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** Sampling temperature, 0–2. */
  temperature?: number;
  /** Upper bound on generated tokens. */
  maxTokens?: number;
}

/** Which model provider to use. */
export type ProviderConfig = OpenAIProviderConfig;

/** Options of `Lectern.open`. */
export interface LecternOptions {
  /** IndexedDB database name. Without it, conversations live in memory only. */
  dbName?: string;
  /** The model provider. */
  provider: ProviderConfig;
  /** Replaces the built-in system prompt. */
  systemPrompt?: string;
  /** The most history messages sent to the model (default 50). */
  maxHistoryMessages?: number;
  /** The most model calls in one turn (default 10). */
  maxIterations?: number;
  /** Receives every event of every turn, in order. A callback that throws does not break the turn. */
  onEvent?: (event: LecternEvent) => void;
}

/** A stored conversation. */
export interface Conversation {
  id: string;
  title: string;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
}

/** Input of `createConversation`. */
export interface NewConversation {
  title?: string;
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
}

/** A tool call made during a turn and what came of it. */
export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: string;
  result: string | null;
  error: string | null;
  durationMs: number;
  cached: boolean;
}

/** Tokens used, and their cost where the price is known. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd?: number;
}

/** What `send` resolves with. */
export interface SendResult {
  turnId: string;
  /** The assistant's final answer. */
  text: string;
  toolCalls: ToolCallRecord[];
  usage: Usage;
  /** Model calls made in this turn. */
  steps: number;
}

/** Fields every event carries. */
export interface EventBase {
  conversationId: string;
  turnId: string;
}

/** A piece of the answer, in order, before `send` resolves. */
export interface TextDeltaEvent extends EventBase { type: 'textDelta'; text: string; }
/** Tokens used by one model call. */
export interface TokenUsageEvent extends EventBase {
  type: 'tokenUsage';
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd?: number;
}
/** The turn finished with this answer. */
export interface FinishEvent extends EventBase { type: 'finish'; text: string; }
/** The turn failed; `send` rejects with the same error. */
export interface ErrorEvent extends EventBase { type: 'error'; name: LecternErrorName; message: string; }

/** Everything `onEvent` receives; switch on `type`. */
export type LecternEvent = TextDeltaEvent | TokenUsageEvent | FinishEvent | ErrorEvent;

/** The `name` of every error Lectern rejects with. */
export type LecternErrorName =
  | 'NotFoundError' | 'RateLimitError' | 'ConnectionError' | 'ApiError' | 'AuthError'
  | 'ProtocolError' | 'ToolError' | 'StorageError' | 'ConfigError' | 'AbortError'
  | 'TimeoutError' | 'MaxIterationsError';

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
  /** The limit that was hit (`MaxIterationsError`). */
  limit?: number;
  /** The timeout that expired (`TimeoutError`). */
  afterMs?: number;
}
"#;
