/**
 * Lectern ⇄ the browser's own model (the Prompt API, `globalThis.LanguageModel`) as Lectern's
 * `custom` provider. This module imports nothing; the API is a page's only (not in Workers).
 */
import type { CallPolicyConfig, CustomProviderConfig } from './lectern.js';

/** What the browser's model can do now, as `LanguageModel.availability()` answers. */
export type PromptApiAvailability = 'unavailable' | 'downloadable' | 'downloading' | 'available';

/** `expectedInputs` / `expectedOutputs` of `LanguageModel.availability` and `create`: the languages it will read and write. */
export interface PromptApiExpectations {
  expectedInputs?: { type: 'text' | 'image' | 'audio'; languages?: string[] }[];
  expectedOutputs?: { type: 'text'; languages?: string[] }[];
}

/** Why a call or a download could not go on. */
export type PromptApiErrorCode = 'unavailable' | 'needs-download' | 'needs-user-activation' | 'too-long' | 'bad-answer';

/** A failure this module names; `requested` / `available` (tokens) with `too-long`, `availability` with `needs-download`. */
export declare class PromptApiError extends Error {
  constructor(
    code: PromptApiErrorCode,
    message: string,
    details?: { cause?: unknown; requested?: number; available?: number; availability?: PromptApiAvailability },
  );
  name: 'PromptApiError';
  code: PromptApiErrorCode;
  requested?: number;
  available?: number;
  availability?: PromptApiAvailability;
}

/** The JSON schema a cited answer follows (`cited: true`): `{ answer: string, passages: integer[] }` (frozen). */
export declare const CITED_SCHEMA: {
  readonly type: 'object';
  readonly properties: {
    readonly answer: { readonly type: 'string' };
    readonly passages: { readonly type: 'array'; readonly items: { readonly type: 'integer' } };
  };
  readonly required: readonly ['answer', 'passages'];
};

/** The availability of the browser's model; `'unavailable'` too when the browser has no `LanguageModel`. */
export function promptApiAvailability(options?: PromptApiExpectations): Promise<PromptApiAvailability>;

/** Options of {@link downloadPromptApiModel}. */
export interface PromptApiDownloadOptions extends PromptApiExpectations {
  /** The download's progress, `loaded` from 0 to 1. */
  onProgress?: (progress: { loaded: number }) => void;
  /** Stops waiting for the download. */
  signal?: AbortSignal;
}

/**
 * Downloads the browser's model; resolves once it is ready. Call it from a user gesture (a click
 * handler, before any `await`): without one it rejects with a {@link PromptApiError} of code
 * `'needs-user-activation'`.
 */
export function downloadPromptApiModel(options?: PromptApiDownloadOptions): Promise<void>;

/** Options of {@link promptApiProvider}; call-policy options override the local defaults. */
export interface PromptApiProviderOptions extends CallPolicyConfig, PromptApiExpectations {
  /** The model name in usage and events (default `'prompt-api'`). */
  model?: string;
  /** Stream the answer (default `true`). */
  stream?: boolean;
  /**
   * Answer as `{ answer, passages }` JSON (a `responseConstraint`), written out as the answer and
   * ` [n]` per passage it names (default `false`).
   */
  cited?: boolean;
  /** The session dropped part of its context while answering (the `contextoverflow` event). */
  onContextOverflow?: (state: { contextUsage: number; contextWindow: number }) => void;
  /** Base sessions (one per conversation state) kept open for reuse, the least recently used closed first (default 2). */
  keepSessions?: number;
}

/** The provider {@link promptApiProvider} returns: a `custom` provider, and `destroy()` (not enumerable) to close its sessions. */
export interface PromptApiProvider extends CustomProviderConfig {
  destroy(): void;
}

/**
 * The `provider` option for `Lectern.open`: a `custom` provider with `local: true` whose `call`
 * asks the browser's model, in a clone of one session per conversation, streaming, with the
 * abort signal; no tools are offered to it.
 */
export function promptApiProvider(options?: PromptApiProviderOptions): PromptApiProvider;
