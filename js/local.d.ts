import type { CallPolicyConfig, CustomProviderConfig } from './lectern.js';

/** The answer length when neither Lectern nor the host sets one. */
export const DEFAULT_MAX_TOKENS: number;

/** How a local model holds back repeated tokens and stops an answer that repeats itself. */
export interface RepetitionOptions {
  /** llama.cpp's repetition penalty: a logit of a token among the answer's last `repeatLastN` is divided by it when positive, multiplied when not (1: off). */
  repeatPenalty?: number;
  /** How many of the answer's latest tokens the penalty looks at (0: off). */
  repeatLastN?: number;
  /** The answer ends (`finish: 'repetition'`) when its last `repeatStop` tokens are written a third time (0: never). */
  repeatStop?: number;
}

/** `localProvider`'s defaults: `{ repeatPenalty: 1.1, repeatLastN: 64, repeatStop: 16 }` (`generate` alone has them off). */
export const CHAT_REPETITION: Readonly<Required<RepetitionOptions>>;

/** What the model's Worker reports while it generates. */
export type LocalMessage =
  | { type: 'read'; id: number; promptTokens: number; cachedTokens: number; ms: number; stages?: DecoderStageTimes; helperShare?: number | null }
  | { type: 'delta'; id: number; text: string }
  | { type: 'done'; id: number; finish: 'stop' | 'length' | 'repetition' | 'abort'; completionTokens: number; ms: number; stages?: DecoderStageTimes; helperShare?: number | null };

/**
 * Where a read's time went (`generate`'s `profile` option): milliseconds per stage of the decoder,
 * which together cover the read; the products run on every thread, the rest on the Worker's.
 */
export interface DecoderStageTimes {
  /** Token embeddings, RMS norms, and each token's input quantised for the next products. */
  normsAndQuantising: number;
  /** The query, key, value and attention-output matrix products. */
  attentionProducts: number;
  /** Query and key norms (Gemma 3), rotary positions, keys and values into the cache. */
  positionsAndCache: number;
  /** Each token's attention over the positions it sees. */
  attention: number;
  /** The feed-forward network's gate, up and down products. */
  feedForwardProducts: number;
  /** SwiGLU or GeGLU. */
  activation: number;
  /** The output layer's logits for the last token. */
  logits: number;
}

/** How loading goes: bytes arriving, the decoder reading them, fewer threads than asked, done. */
export type LocalLoadProgress =
  | { phase: 'download'; loaded: number; total: number }
  | { phase: 'load' }
  | { phase: 'threads'; message: string }
  | { phase: 'ready'; loadMs: number; threads: number; relaxedSimd: boolean };

/** A GGUF model (Llama or Gemma 3 architecture, byte-level BPE or SentencePiece vocabulary) loaded into its own Worker. */
export class LocalModel {
  /**
   * `threads` (1 to 16, default {@link defaultThreads}): above 1, on a cross-origin isolated page, the
   * threaded build runs with helper Workers sharing its matrix products; elsewhere one thread.
   */
  constructor(
    url: string | URL,
    options?: {
      workerUrl?: string | URL;
      cacheName?: string | null;
      threads?: number;
      /** Default true: the relaxed-SIMD build where the browser has relaxed SIMD (the same answers, faster 4-bit products); false: the plain SIMD build. */
      relaxedSimd?: boolean;
      onProgress?: (progress: LocalLoadProgress) => void;
    },
  );
  /** Settles when the model is loaded (rejects with what the file lacks). */
  readonly ready: Promise<void>;
  /** How long loading took (ms), once loaded. */
  loadMs?: number;
  /** The threads it runs on, once loaded. */
  threads?: number;
  /** Whether the relaxed-SIMD build runs, once loaded. */
  relaxedSimd?: boolean;
  /**
   * A continuation of `prompt`; the signal aborts it (its last message is `done` with `finish: 'abort'`).
   * `temperature` 0 (the default) always takes the most likely token; above it tokens are drawn from
   * the `topP` nucleus, `seed` replaying a draw. The repetition options ({@link RepetitionOptions})
   * are off unless given.
   */
  generate(
    prompt: string,
    options?: { maxTokens?: number; signal?: AbortSignal; temperature?: number; topP?: number; seed?: number; profile?: boolean } & RepetitionOptions,
  ): AsyncGenerator<LocalMessage, void>;
  /**
   * Reads `prompt` into the prefix cache without generating (a later prompt beginning with it reads
   * only the rest); resolves with the `read` message, or `null` when `signal` aborted it.
   */
  prefill(prompt: string, options?: { signal?: AbortSignal }): Promise<Extract<LocalMessage, { type: 'read' }> | null>;
  /** Ends the Worker. */
  close(): void;
}

/** The default threads: the logical processors (at most 4) on a cross-origin isolated page whose browser has `SharedArrayBuffer`, else 1. */
export function defaultThreads(): number;

/** A conversation in ChatML, ending with the assistant's turn opened. */
export function chatmlPrompt(messages: ReadonlyArray<{ role: string; content?: unknown }>): string;

/** The `provider` option for `Lectern.open` with a {@link LocalModel}; the repetition options default to {@link CHAT_REPETITION}. */
export function localProvider(
  model: LocalModel,
  options?: { model?: string; maxTokens?: number; template?: (messages: ReadonlyArray<{ role: string; content?: unknown }>) => string } & RepetitionOptions & CallPolicyConfig,
): CustomProviderConfig;
