//! The TypeScript types of the public API, written once by hand.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Retries, rate limits and timeouts; every provider kind takes them. */
export interface CallPolicyConfig {
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
  /** Sent as `tool_choice` when tools are offered. */
  toolChoice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
}

/** Anthropic's Messages API (called from the browser with `anthropic-dangerous-direct-browser-access`). */
export interface AnthropicProviderConfig extends CallPolicyConfig {
  kind: 'anthropic';
  /** Default `https://api.anthropic.com/v1`. */
  baseUrl?: string;
  model: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  stream?: boolean;
  headers?: Record<string, string>;
  /** Sampling temperature, 0–1. */
  temperature?: number;
  /** Required by the API; default 4096. */
  maxTokens?: number;
  /** The `anthropic-version` header; default `2023-06-01`. */
  anthropicVersion?: string;
}

/** A host function speaking the OpenAI format: WebLLM, a proxy, a test double. */
export interface CustomProviderConfig extends CallPolicyConfig {
  kind: 'custom';
  /**
   * Gets an OpenAI chat-completions request; returns (or resolves with) a `chat.completion`
   * object or an async iterable of `chat.completion.chunk` objects. Throw an error with a numeric
   * `status` to report an HTTP-like failure (429 with `retryAfterMs` is retried).
   */
  call: (request: ChatCompletionRequest) =>
    | ChatCompletion
    | AsyncIterable<ChatCompletionChunk>
    | Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk>>;
  /** Reported in usage and looked up in prices; default `custom`. */
  model?: string;
  /** Whether requests ask for a stream (`stream: true`); default `true`. */
  stream?: boolean;
}

/** Which model provider to use. */
export type ProviderConfig = OpenAIProviderConfig | AnthropicProviderConfig | CustomProviderConfig;

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

/** Options of `send` and `stream`. */
export interface SendOptions {
  /** Aborting it cancels the model call and running tools; `send` rejects with `AbortError`. */
  signal?: AbortSignal;
  /** The tenant for this turn, instead of `Lectern.open({ userId })`. */
  userId?: string;
  /** Items to resolve with `resolveMention` and show the model in this turn. */
  mentions?: Mention[];
}

/** With `friendlyErrors`, what a failed `send` resolves with. */
export interface FailedSend {
  success: false;
  /** A short message fit for an end user. */
  text: string;
  error: LecternError;
}

/** Options of `Lectern.open`. Where layers overlap, `persona` wins over `modelProfile`, which wins over the defaults. */
export interface LecternOptions {
  /** IndexedDB database name. Without it, conversations live in memory only. */
  dbName?: string;
  /** The model provider, with its retries, rate limit, timeouts and prices. */
  provider: ProviderConfig;
  /** Who the assistant is: prompt, temperature, tools. */
  persona?: Persona;
  /** What the model can take. */
  modelProfile?: ModelProfile;
  /** Which tools may be offered at all. */
  toolShell?: { allowedTools?: string[] };
  /** Shorthand for `toolShell.allowedTools`. */
  allowedTools?: string[];
  /** Limits of one turn. */
  limits?: RunLimits;
  /** Which history the model sees (default `{ strategy: 'fullHistory', maxMessages: 50 }`). */
  context?: ContextStrategy;
  /** Run the tool calls of one response concurrently (default `true`). */
  parallelToolCalls?: boolean;
  /** Resolve a failed `send` with `{ success: false, text, error }` (text fit for an end user) instead of rejecting. */
  friendlyErrors?: boolean;
  /** Argument fields (at any depth) hidden in events and stored records, e.g. `['password']`. */
  redactArguments?: string[];
  /** The tenant id every tool's `ctx.userId` carries; the model can never set it. */
  userId?: string;
  /** Prompt templates by name, replacing or adding to the built-in ones (`conversation_system_prompt`). */
  prompts?: Record<string, string>;
  /** Values for `{{variables}}` in prompts (`date`, `conversation_title` and `user_id` are always set). */
  promptVariables?: Record<string, string>;
  /** Turns a mention into text for the model (see `SendOptions.mentions`). */
  resolveMention?: (mention: Mention) => string | Promise<string>;
  /** The embedder for books (default `{ kind: 'hashed' }`, offline). */
  embedder?: EmbedderConfig;
  /** How books are cut and how book conversations retrieve. */
  retrieval?: RetrievalSettings;
  /** Which tool calls need a person's approval (default: every tool runs without asking). */
  approvals?: ApprovalOptions;
  /** Receives every event of every turn, in order, and `ingestProgress`. A callback that throws does not break the turn. */
  onEvent?: (event: LecternEvent | IngestProgressEvent) => void;
}

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
  /** Policy of tools not listed (default `'auto'`). */
  default?: ApprovalPolicy;
  /** Per tool: a policy, or a function of the call, e.g. reads `'auto'`, writes `'ask'`. */
  tools?: Record<string, ApprovalPolicy | ((args: Record<string, unknown>, ctx: PolicyContext) => ApprovalPolicy | Promise<ApprovalPolicy>)>;
  /** Approve every `'ask'` without asking (trusted or headless use); `'deny'` still refuses. */
  autoApprove?: boolean;
  /** How long a paused turn waits for decisions (default 86 400 000, a day). */
  ttlMs?: number;
}

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
export type ToolDecision = 'auto' | 'approved' | 'rejected' | 'edited' | 'denied' | 'cancelled' | 'expired';

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
  /** `'running'` only if the page closed while it ran. */
  status: 'running' | 'completed' | 'failed';
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
}

/** Which embedder turns book passages and queries into vectors. */
export type EmbedderConfig =
  | { kind: 'hashed'; dimensions?: number }
  | {
      kind: 'openai';
      baseUrl: string;
      model: string;
      apiKey?: string;
      headers?: Record<string, string>;
      batchSize?: number;
      dimensions?: number;
      maxRetries?: number;
    }
  | {
      kind: 'custom';
      /** Recorded with each book: a book can only be searched with the model that embedded it. */
      model: string;
      embed: (texts: string[]) => Promise<Float32Array[] | number[][]>;
      batchSize?: number;
    };

/** Book cutting and retrieval. */
export interface RetrievalSettings {
  /** `toolUse` (default): the model calls `search_book`. `alwaysRetrieve`: no tools; the user's message is searched and the passages put into the context. */
  strategy?: 'toolUse' | 'alwaysRetrieve';
  /** Chunk size in characters (default 800). */
  chunkChars?: number;
  /** Overlap between chunks in characters (default 150). */
  overlapChars?: number;
  /** Size of synthetic pages when the text has no page markers (default 2000). */
  pageChars?: number;
}

/** A stored book. */
export interface Book {
  id: string;
  title: string;
  author?: string;
  pageCount: number;
  chunkCount: number;
  /** The reader's page: `search_book` never returns text past it. */
  currentPage: number;
  /** The embedding model its vectors came from. */
  embedder: string;
  dimensions: number;
  chapters?: string[];
  createdAt: number;
}

/** Input of `addBook`: exactly one of `text` (pages from form feeds, `[[page N]]` markers, or about `pageChars`), `pages` or `epub`. */
export type NewBook = { title: string; author?: string } & (
  | { text: string; pages?: never; epub?: never }
  | { pages: string[]; text?: never; epub?: never }
  | { epub: Uint8Array; text?: never; pages?: never }
);

/** Options of `addBook`. */
export interface AddBookOptions {
  onProgress?: (progress: IngestProgress) => void;
  /** Aborting it stops ingestion; nothing of the book is stored. */
  signal?: AbortSignal;
}

/** Where ingestion is. */
export interface IngestProgress {
  bookId: string;
  phase: 'chunking' | 'embedding' | 'indexing';
  done: number;
  total: number;
}

/** `ingestProgress`, sent to `onEvent` during `addBook` (it belongs to no conversation). */
export interface IngestProgressEvent extends IngestProgress {
  type: 'ingestProgress';
}

/** Options of `search`. */
export interface SearchOptions {
  /** Only these books (default: all). */
  bookIds?: string[];
  /** Results wanted (default 5, at most 100). */
  k?: number;
  /** No result ends after this page; there are exactly `min(k, eligible passages)` results. */
  maxPage?: number;
}

/** A passage found by `search` or `search_book`. */
export interface SearchResult {
  bookId: string;
  ordinal: number;
  text: string;
  startPage: number;
  endPage: number;
  chapter?: string;
  /** Cosine similarity to the query. */
  score: number;
}

/** The persona layer. */
export interface Persona {
  /** System prompt text (may use `{{variables}}`); overrides `prompt`. */
  systemPrompt?: string;
  /** Name of a prompt template (default `conversation_system_prompt`). */
  prompt?: string;
  temperature?: number;
  /** The tools this persona uses (default: every allowed tool). */
  tools?: string[];
}

/** The model-profile layer. */
export interface ModelProfile {
  /** Context window in tokens. */
  contextLength?: number;
  /** Default temperature for this model. */
  temperature?: number;
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
  /** How long a `send` waits for another turn on the same conversation (default: no limit; `ConversationBusyError`). */
  lockWaitMs?: number;
}

/** Which history the model sees. Tool calls are never split from their results. */
export type ContextStrategy =
  | { strategy: 'fullHistory'; maxMessages: number }
  | { strategy: 'tokenBudget'; maxTokens: number };

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
}

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
  /** The arguments the model wrote (JSON text). */
  originalArguments: string;
  /** The arguments it ran with (differ when edited). */
  arguments: string;
  /** Why a person rejected it. */
  reason?: string;
  result: string | null;
  error: string | null;
  durationMs: number;
  cached: boolean;
  startedAt: number;
  finishedAt: number;
}

/** Tokens used, and their cost where the price is known. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd?: number;
}

/** What `send` and `resolveApprovals` resolve with: an answer, or a turn paused for approval. */
export type SendResult = CompletedTurn | AwaitingApproval;

/** Fields of both outcomes of a turn. */
export interface TurnOutcomeBase {
  success: true;
  turnId: string;
  /** Every tool call of the turn so far. */
  toolCalls: ToolCallRecord[];
  usage: Usage;
  /** Model calls made in this turn. */
  steps: number;
}

/** The model answered. */
export interface CompletedTurn extends TurnOutcomeBase {
  status: 'completed';
  /** The assistant's final answer. */
  text: string;
}

/** Calls wait for a person: decide them with `resolveApprovals(turnId, ...)`. */
export interface AwaitingApproval extends TurnOutcomeBase {
  status: 'awaitingApproval';
  /** Empty while the turn waits. */
  text: '';
  pending: PendingCall[];
}

/** Fields every event carries. */
export interface EventBase {
  conversationId: string;
  turnId: string;
}

/** A model call begins (1, 2, ...). */
export interface StepStartEvent extends EventBase { type: 'stepStart'; step: number; }
/** A piece of the answer, in order, before `send` resolves. */
export interface TextDeltaEvent extends EventBase { type: 'textDelta'; text: string; }
/** A piece of a tool call the model is writing (empty `argumentsDelta` when arguments are redacted). */
export interface ToolCallDeltaEvent extends EventBase {
  type: 'toolCallDelta';
  index: number;
  callId?: string;
  toolName?: string;
  argumentsDelta: string;
}
/** A tool is about to run. */
export interface ToolInvocationEvent extends EventBase { type: 'toolInvocation'; toolName: string; arguments: string; callId: string; }
/** A tool finished, failed or was refused. */
export interface ToolResultEvent extends EventBase {
  type: 'toolResult';
  toolName: string;
  callId: string;
  result: string | null;
  error: string | null;
  durationMs: number;
  cached: boolean;
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
}
/** The turn paused: these calls wait for a decision (`send` resolves `awaitingApproval`). */
export interface ApprovalRequestedEvent extends EventBase { type: 'approvalRequested'; calls: PendingCall[]; expiresAt: number; }
/** The turn finished with this answer. */
export interface FinishEvent extends EventBase { type: 'finish'; text: string; }
/** The turn failed; `send` rejects with the same error. */
export interface ErrorEvent extends EventBase { type: 'error'; name: LecternErrorName; message: string; }

/** Everything `onEvent` receives; switch on `type`. */
export type LecternEvent =
  | StepStartEvent
  | TextDeltaEvent
  | ToolCallDeltaEvent
  | ToolInvocationEvent
  | ToolResultEvent
  | TokenUsageEvent
  | StepFinishEvent
  | ApprovalRequestedEvent
  | FinishEvent
  | ErrorEvent;

/** The `name` of every error Lectern rejects with. */
export type LecternErrorName =
  | 'NotFoundError' | 'RateLimitError' | 'ConnectionError' | 'ApiError' | 'AuthError'
  | 'ProtocolError' | 'ToolError' | 'StorageError' | 'ConfigError' | 'AbortError'
  | 'TimeoutError' | 'MaxIterationsError' | 'MaxToolCallsError' | 'ConversationBusyError'
  | 'EmbedderMismatchError' | 'ApprovalPendingError' | 'AlreadyResolvedError' | 'ApprovalExpiredError'
  | 'CallNotPendingError' | 'InvalidArgumentsError';

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
}
"#;
