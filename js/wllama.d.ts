/**
 * Lectern ⇄ wllama: an in-browser llama.cpp model (`@wllama/wllama`) as Lectern's `custom`
 * provider. This module imports nothing; it works with the wllama instance it is given.
 */
import type { CallPolicyConfig, CustomProviderConfig } from './lectern.js';

/** The part of a `Wllama` instance the adapter uses (structural, so any wllama 3.x fits). */
export interface WllamaLike {
  createChatCompletion(params: any): Promise<any>;
  /** Needed only with the `completion` option. */
  createCompletion?(params: any): Promise<any>;
  loadModelFromUrl(url: string, params?: any): Promise<void>;
}

/** The answer length of an in-browser model when neither Lectern nor the host sets one (256 tokens: ~20 s at ~12 tokens/s on one thread). */
export declare const DEFAULT_MAX_TOKENS: number;

/** Options of {@link wllamaProvider}; call-policy options override the local defaults. */
export interface WllamaProviderOptions extends CallPolicyConfig {
  /** The model name in usage and events (default `'wllama'`). */
  model?: string;
  /** Stream the answer (default `true`). */
  stream?: boolean;
  /** A promise every call waits for first, e.g. {@link loadWllamaModel}'s. */
  ready?: Promise<unknown>;
  /** `max_tokens` when Lectern sets none (default {@link DEFAULT_MAX_TOKENS}, so that a small model cannot ramble for minutes). */
  maxTokens?: number;
  /** wllama sampling parameters (`top_k`, `top_p`, `min_p`, `penalty_repeat`, …). */
  sampling?: Record<string, unknown>;
  /**
   * For a base model with no chat template: `true` for {@link completionPrompt}, or a function of
   * the messages giving the text to continue and its stop strings. The call then goes through
   * `wllama.createCompletion`, and the model is offered no tools.
   */
  completion?: true | ((messages: ReadonlyArray<{ role: string; content: string | null }>) => CompletionForm);
}

/** A conversation as text for a base model to continue, and where its answer ends. */
export interface CompletionForm {
  prompt: string;
  stop?: string[];
}

/**
 * The default completion form: the system message, each turn as `Question: …` / `Answer: …`, and a
 * final `Answer:`; it stops at the next `Question:` or a blank line.
 */
export function completionPrompt(messages: ReadonlyArray<{ role: string; content: string | null }>): CompletionForm;

/**
 * The `provider` option for `Lectern.open`: a `custom` provider with `local: true` (longer
 * turn and first-token limits, no retries) whose `call` runs `wllama.createChatCompletion`,
 * streaming, with the abort signal, and usage from wllama's timings.
 */
export function wllamaProvider(wllama: WllamaLike, options?: WllamaProviderOptions): CustomProviderConfig;

/** Progress of {@link loadWllamaModel}. */
export type WllamaLoadProgress =
  | { phase: 'download'; loaded: number; total: number }
  | { phase: 'load' }
  | { phase: 'ready'; loadMs: number };

/** Options of {@link loadWllamaModel}: `onProgress`, and wllama's `loadModelFromUrl` parameters. */
export interface WllamaLoadOptions {
  onProgress?: (progress: WllamaLoadProgress) => void;
  n_ctx?: number;
  n_batch?: number;
  n_threads?: number;
  useCache?: boolean;
  [param: string]: unknown;
}

/** Loads a GGUF model from `url` into `wllama`, reporting download and load progress. */
export function loadWllamaModel(wllama: WllamaLike, url: string, options?: WllamaLoadOptions): Promise<void>;
