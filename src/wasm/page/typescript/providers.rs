//! TypeScript types — the model providers: their configuration and the OpenAI-format values a custom provider exchanges.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const PROVIDERS: &'static str = r#"
/** Retries, rate limits and timeouts; every provider kind takes them. */
export interface CallPolicyConfig {
  /**
   * The model runs on the reader's device (wllama in the page, a local server): defaults that
   * suit it where nothing is set — `timeouts.firstChunkMs` 600 s, `maxRetries` 0, and
   * `limits.turnTimeoutMs` 600 s. `lectern/wllama`'s `wllamaProvider` sets it.
   */
  local?: boolean;
  /** Retries after the first attempt for 429, 408, 5xx and connection failures (default 2). Never after the first streamed part. */
  maxRetries?: number;
  /** Exponential backoff with jitter; a server's Retry-After wins, capped at `maxRetryAfterMs`. */
  retry?: { initialDelayMs?: number; maxDelayMs?: number; maxRetryAfterMs?: number };
  /** Client-side budget: calls past it wait rather than fail. */
  rateLimit?: { requestsPerMinute?: number; tokensPerMinute?: number };
  /** Time limits of one model call (defaults: first chunk 120 s, idle 60 s, total none). `null` disables one. */
  timeouts?: { firstChunkMs?: number | null; idleMs?: number | null; totalMs?: number | null };
  /** Price overrides per model name, in US dollars per million tokens. */
  prices?: Record<string, ModelPrice>;
}

/** A model's price in US dollars per million tokens. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  cachedInputPerMTok?: number;
}

/** An OpenAI-compatible chat-completions server (OpenAI, Ollama, LM Studio, vLLM, llama.cpp, LiteLLM, ...). */
export interface OpenAIProviderConfig extends CallPolicyConfig {
  kind: 'openai';
  /** Base URL up to and including `/v1` (default `https://api.openai.com/v1`); a path such as `/v1` (your own proxy) is resolved against the page's URL. */
  baseUrl?: string;
  /** Model name sent with each request. */
  model: string;
  /** Bearer token; omit for servers that need none. */
  apiKey?: string;
  /** Stream the answer over SSE (default `true`). */
  stream?: boolean;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Sampling temperature, 0–2. Default 0.7, but none for models that reason first (o-series,
   * GPT-5, gpt-oss, `…reasoner`, R1, QwQ, `…thinking…`: they refuse or ignore it); `null` sends none.
   */
  temperature?: number | null;
  /** Upper bound on generated tokens. Default 2048 (none for models that reason first); `null` sends none. */
  maxTokens?: number | null;
  /** Sent as `tool_choice` when tools are offered; one that forces a call (`'required'`, a function) is sent as `'auto'` once a step of the turn called tools. */
  toolChoice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  /** Send a tool-call message's reasoning back as `reasoning_content` (DeepSeek thinking mode needs it); default `true` only for `api.deepseek.com`. */
  replayReasoning?: boolean;
  /** The name of the token-limit field; default `'max_completion_tokens'` for `api.openai.com`, else `'max_tokens'`. */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
}

/** Anthropic's Messages API (called from the browser with `anthropic-dangerous-direct-browser-access`). */
export interface AnthropicProviderConfig extends CallPolicyConfig {
  kind: 'anthropic';
  /** Default `https://api.anthropic.com/v1`; a path such as `/v1` is resolved against the page's URL. */
  baseUrl?: string;
  model: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  stream?: boolean;
  headers?: Record<string, string>;
  /** Sampling temperature, 0–1. Default 0.7 (none with `thinking`); `null` sends none. */
  temperature?: number | null;
  /** Required by the API; default 4096. */
  maxTokens?: number;
  /** The `anthropic-version` header; default `2023-06-01`. */
  anthropicVersion?: string;
  /** Extended thinking: `budgetTokens` at least 1024 and below `maxTokens`. `temperature` is then not sent. */
  thinking?: { budgetTokens: number };
}

/** A host function speaking the OpenAI format: WebLLM, a proxy, a test double. */
export interface CustomProviderConfig extends CallPolicyConfig {
  kind: 'custom';
  /**
   * Gets an OpenAI chat-completions request; returns (or resolves with) a `chat.completion`
   * object or an async iterable of `chat.completion.chunk` objects. Throw an error with a numeric
   * `status` to report an HTTP-like failure (429 with `retryAfterMs` is retried).
   */
  call: (request: ChatCompletionRequest, options: CustomCallOptions) =>
    | ChatCompletion
    | AsyncIterable<ChatCompletionChunk>
    | Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk>>;
  /** Reported in usage and looked up in prices; default `custom`. */
  model?: string;
  /** Whether requests ask for a stream (`stream: true`); default `true`. */
  stream?: boolean;
  /** The requests' `temperature`, 0–2; none by default (the engine's own sampling). */
  temperature?: number | null;
  /** The requests' `max_tokens`; default 2048; `null` sends none. */
  maxTokens?: number | null;
}

/**
 * No model: a book conversation's question is answered with the one to three sentences of its
 * passages (the reader's pages, the first passages naming who is asked about, the best passages
 * for the question) that best answer it, quoted in book order with their pages
 * (`p. 31: “…”`). Every word is the book's and none is past the reader's page; the answer is
 * marked `quoted: { reason: 'provider' }`. A conversation without a book gets a `ConfigError`.
 */
export interface QuotesProviderConfig {
  kind: 'quotes';
  /** Reported in usage and events; default `quotes`. */
  model?: string;
}

/** The second argument of a custom provider's `call`. */
export interface CustomCallOptions {
  /** Aborted when the call is cancelled, times out or its answer is given up: stop the work. */
  signal: AbortSignal;
}

/** Which model provider to use. */
export type ProviderConfig = OpenAIProviderConfig | AnthropicProviderConfig | CustomProviderConfig | QuotesProviderConfig;

/** A tool call in the OpenAI format. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A message in the OpenAI format. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** What a custom provider's function receives. */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  tools?: { type: 'function'; function: { name: string; description: string; parameters: object } }[];
  tool_choice?: unknown;
  temperature?: number;
  max_tokens?: number;
  /** With `send`'s `responseSchema`: answer in JSON matching `json_schema.schema`. */
  response_format?: { type: 'json_schema'; json_schema: { name: string; schema: JsonSchema; strict: boolean } };
  stream?: boolean;
  stream_options?: { include_usage: boolean };
}

/** Token counts in the OpenAI format. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
}

/** A whole answer in the OpenAI format. */
export interface ChatCompletion {
  choices: { message: { role?: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }; finish_reason: string | null }[];
  usage?: ChatUsage;
}

/** One streamed piece of an answer in the OpenAI format. */
export interface ChatCompletionChunk {
  choices: {
    delta: {
      role?: 'assistant';
      content?: string | null;
      tool_calls?: { index: number; id?: string; type?: 'function'; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason?: string | null;
  }[];
  usage?: ChatUsage | null;
}
"#;
