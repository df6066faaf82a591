//! TypeScript types — options of `Lectern.open`, `send` and `stream`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const OPTIONS: &'static str = r#"
/** Options of `send` and `stream`. */
export interface SendOptions {
  /** Aborting it cancels the model call and running tools; `send` rejects with `AbortError`. */
  signal?: AbortSignal;
  /** The tenant for this turn, instead of `Lectern.open({ userId })`. */
  userId?: string;
  /** Items to resolve with `resolveMention` and show the model in this turn. */
  mentions?: Mention[];
  /** The model this turn asks instead of the provider's `model` (OpenAI-compatible and Anthropic send it; a custom function reads `request.model`; local models ignore it); its usage is priced as that model's (`provider.prices`). */
  model?: string;
  /** The most tokens each answer of this turn may have; wins over the persona's and the model profile's. */
  maxOutputTokens?: number;
  /** The most tokens of book passages this turn reads (its system message's passages, and each `search_book` result), instead of `retrieval.maxContextTokens` (at least 1). */
  maxContextTokens?: number;
  /** This turn's spend limit, instead of `Lectern.open({ budget })`. */
  budget?: Budget;
  /** This turn's own approval settings, over the instance's (a paused turn keeps them). */
  approvals?: SendApprovals;
  /** Ask for an answer in JSON matching this schema: the result's `data` (`StructuredOutputError` if it does not match, after one corrective call). */
  responseSchema?: ResponseSchema;
}

/** Options of `askOnce`: `send`'s, and the book the question is about. */
export interface AskOnceOptions extends SendOptions {
  /** Ask as in a conversation about this stored book (its reader's pages, its passages, `search_book`). */
  bookId?: string;
}

/** `send`'s `responseSchema`: structured output. */
export interface ResponseSchema {
  /** 1-64 characters of a-z, A-Z, 0-9, `_` or `-` (default `'response'`); OpenAI's `json_schema.name`. */
  name?: string;
  /** A JSON Schema with `"type": "object"`. `pattern` and `format` are not checked by Lectern. */
  schema: JsonSchema;
  /** OpenAI-compatible servers enforce the schema while sampling (needs every property required and `additionalProperties: false`; default `false`). */
  strict?: boolean;
}

/** `send`'s `approvals`. */
export interface SendApprovals {
  /** `true`: every `'ask'` of this turn runs; `false`: ask even if the instance auto-approves. `'deny'` still refuses. */
  autoApprove?: boolean;
  /** What this message does to a turn waiting for approval (default: the instance's `approvals.onNewMessage`). */
  onNewMessage?: OnNewMessage;
}

/** The built-in tools `builtinTools` can turn on. */
export type BuiltinTool = 'current_datetime' | 'current_weather';

/** Where the `current_weather` built-in tool sends (Open-Meteo, no API key). */
export interface WeatherOptions {
  /** The forecast API's origin (`GET {baseUrl}/v1/forecast`; default `'https://api.open-meteo.com'`). */
  baseUrl?: string;
  /** The geocoding API's origin (`GET {geocodingBaseUrl}/v1/search`; default `'https://geocoding-api.open-meteo.com'`). */
  geocodingBaseUrl?: string;
}

/** With `friendlyErrors`, what a failed `send` or `resolveApprovals` resolves with. */
export interface FailedSend {
  success: false;
  status: 'failed';
  /** A short message fit for an end user. */
  text: string;
  error: LecternError;
}

/** Options of `Lectern.open`. Where layers overlap, `persona` wins over `modelProfile`, which wins over the defaults. */
export interface LecternOptions {
  /** IndexedDB database name. Without it, conversations live in memory only. */
  dbName?: string;
  /**
   * How long opening `dbName` waits when other tabs hold an older version open and block the
   * schema upgrade, before rejecting with `StorageError` reason `blocked` (ms, default 5000).
   */
  blockedTimeoutMs?: number;
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
  /**
   * Built-in tools to register: `'current_datetime'` (the date and time in an IANA zone, or the
   * reader's), `'current_weather'` (the weather now at a place, from Open-Meteo).
   */
  builtinTools?: BuiltinTool[];
  /** Where `current_weather` sends (default: Open-Meteo's public APIs). */
  weather?: WeatherOptions;
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
  /** Emit `reasoningDelta` events and include stored reasoning in `messages()` (default `false`). */
  showThinking?: boolean;
  /** Keep each turn's events in IndexedDB so `replay(turnId)` can yield them again (default `false`). */
  recordEvents?: boolean;
  /** The tenant id every tool's `ctx.userId` carries; the model can never set it. */
  userId?: string;
  /** Prompt templates by name, replacing or adding to the built-in ones (`conversation_system_prompt`). */
  prompts?: Record<string, string>;
  /** Values for `{{variables}}` in prompts (`date`, `conversation_title` and `user_id` are always set). */
  promptVariables?: Record<string, string>;
  /** Turns a mention into text for the model (see `SendOptions.mentions`). */
  resolveMention?: (mention: Mention) => string | Promise<string>;
  /** The embedder for books (default `{ kind: 'none' }`: no vectors, books searched by words with BM25). */
  embedder?: EmbedderConfig;
  /** How books are cut and how book conversations retrieve. */
  retrieval?: RetrievalSettings;
  /** Ingest books (`addBook`) in Lectern's own module Worker (default true); `false`: in the page, yielding to the event loop every ~10 ms, and no HNSW index is built (searches are exact). Without `Worker`, or when the worker cannot start, Lectern ingests in the page the same way. */
  worker?: boolean;
  /** Where the worker script is, if not `lectern_worker.js` beside `lectern.js` (e.g. a URL your bundler or server gives it). */
  workerUrl?: string | URL;
  /** Which tool calls need a person's approval (default: every tool runs without asking). */
  approvals?: ApprovalOptions;
  /** Characters of one tool result the model reads (default 50,000): the rest is cut with a note (`[truncated: 50,000 of 812,345 characters shown]`); the tool-call record keeps it whole. */
  maxToolResultChars?: number;
  /** The spend limit of each turn, checked before each model call (`BudgetExceededError`); `send`'s `budget` replaces it. */
  budget?: Budget;
  /** The spend limit of each conversation over all its turns (`usage(conversationId)`), checked before each model call. */
  budgetPeriod?: Budget;
  /** Follow the user's synced document on every device (loads `lectern/sync` only when set). `Lectern.open` resolves once what is there now went both ways; the server being unreachable does not stop it (the follower reconnects). */
  sync?: SyncOptions;
  /** Receives every event of every turn, in order, `ingestProgress`, `ingestFailed`, `storageClosed`, `warning`, `syncStatus` and `synced`, each deeply frozen (one listener cannot change what the next sees). A callback that throws does not break the turn. */
  onEvent?: (event: LecternEvent | IngestProgressEvent | IngestFailedEvent | StorageClosedEvent | InstanceWarningEvent | SyncStatusEvent | SyncedEvent) => void;
}
"#;
