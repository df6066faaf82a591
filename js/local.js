// Lectern ⇄ Lectern's own decoder (`lectern_local_bg.wasm`, run in a module Worker): an
// in-browser model as Lectern's `custom` provider, with no other package.
//
//   import { Lectern } from 'lectern';
//   import { LocalModel, localProvider } from 'lectern/local';
//
//   const model = new LocalModel('/models/SmolLM2-135M-Instruct.Q4_1.gguf');
//   const lectern = await Lectern.open({ provider: localProvider(model, { model: 'smollm2' }),
//                                        retrieval: { strategy: 'alwaysRetrieve', maxContextTokens: 300 } });
//
// The model file is kept in the Cache API (`cacheName`, default 'lectern-models-v1', the cache
// MiniLM's files use too) for offline use.
// A conversation's next prompt reuses the keys and values of the prompt before it (the system
// message and passages that did not change are not read again).

/** The answer length when neither Lectern nor the host sets one. */
export const DEFAULT_MAX_TOKENS = 256;

/**
 * {@link localProvider}'s defaults against a small model's loops: llama.cpp's repetition penalty
 * at 1.1 (its default before 2024; today's is 1, off) over the answer's last 64 tokens, and the
 * answer ended when a run of 16 tokens is written a third time.
 */
export const CHAT_REPETITION = Object.freeze({ repeatPenalty: 1.1, repeatLastN: 64, repeatStop: 16 });

/** A GGUF model (Llama or Gemma 3 architecture, byte-level BPE or SentencePiece vocabulary) loaded into its own Worker. */
export class LocalModel {
  /**
   * `url`: the .gguf file. options: `workerUrl` (default `lectern_local_worker.js` beside this
   * module), `cacheName` (the Cache API cache, default `'lectern-models-v1'`; `null` for none),
   * `onProgress` (`{ phase: 'download', loaded, total }` as bytes arrive, `{ phase: 'load' }`
   * while the decoder reads them, `{ phase: 'threads', message }` when it runs on fewer threads
   * than asked, `{ phase: 'ready', loadMs, threads }`), `threads` (default
   * {@link defaultThreads}: more than one only on a cross-origin isolated page, where the
   * threaded build runs and helper Workers share the decoder's matrix products), `relaxedSimd`
   * (default: where the browser has relaxed SIMD, the build whose 4-bit products use its dot
   * product; `false`: the plain SIMD build everywhere; the answers are the same). Once `ready`,
   * `threads` is how many it runs on and `relaxedSimd` whether that build runs.
   */
  constructor(url, options = {}) {
    const threads = threadCount(options.threads ?? defaultThreads());
    this.onProgress = options.onProgress;
    const workerUrl = options.workerUrl ?? 'lectern_local_worker.js';
    // `new Worker(new URL(…, import.meta.url))` in one expression: the form bundlers (Vite,
    // webpack 5, esbuild) recognise and bundle as a Worker (apart, Vite copies the file as is).
    this.worker = options.workerUrl
      ? new Worker(options.workerUrl, { type: 'module' })
      : new Worker(new URL('./lectern_local_worker.js', import.meta.url), { type: 'module' });
    this.jobs = new Map();
    this.nextId = 1;
    this.worker.onmessage = ({ data }) => this.#heard(data);
    // A Worker that cannot start (its script not found, a syntax error) fails every job, loading first.
    this.worker.onerror = (event) => {
      event.preventDefault?.();
      this.#failAll(`the local model's Worker failed: ${event.message || 'its script did not load'} (${workerUrl})`);
    };
    this.ready = new Promise((resolve, reject) => this.jobs.set(0, { resolve, reject }));
    // Marked handled: a generation awaits it and rejects with its error.
    this.ready.catch(() => {});
    this.worker.postMessage({
      type: 'load',
      id: 0,
      url: String(new URL(url, globalThis.location?.href)),
      cacheName: options.cacheName === undefined ? 'lectern-models-v1' : options.cacheName,
      threads,
      relaxedSimd: options.relaxedSimd !== false,
    });
  }

  /** Every job waiting fails with `message` (the Worker is gone). */
  #failAll(message) {
    const jobs = [...this.jobs.values()];
    this.jobs.clear();
    for (const job of jobs) fail(job, 'Error', message);
  }

  #heard(data) {
    if (data.type === 'progress') {
      const { type, ...progress } = data;
      this.onProgress?.(progress);
      return;
    }
    const { id } = data;
    const job = this.jobs.get(id);
    if (!job) return;
    if (data.type === 'error') {
      this.jobs.delete(id);
      fail(job, data.name, data.message);
    } else if (data.type === 'loaded') {
      this.jobs.delete(id);
      this.loadMs = data.ms;
      this.threads = data.threads;
      this.relaxedSimd = data.relaxedSimd;
      this.onProgress?.({ phase: 'ready', loadMs: data.ms, threads: data.threads, relaxedSimd: data.relaxedSimd });
      job.resolve();
    } else {
      if (data.type === 'done') this.jobs.delete(id);
      job.push(data);
    }
  }

  /**
   * Generates a continuation of `prompt` (text; special tokens written in it are matched whole):
   * an async iterator of the worker's messages (`read`, `delta`, `done`). `signal` aborts it;
   * `temperature` (default 0: always the most likely token), `topP` (default 1) and `seed`
   * (default 0; the same seed draws the same answer) choose how tokens are drawn, after
   * llama.cpp's repetition penalty `repeatPenalty` (default 1: off) over the answer's last
   * `repeatLastN` tokens (default 64). `repeatStop` (default 0: never) ends the answer, with
   * `finish: 'repetition'`, when its last `repeatStop` tokens are written a third time.
   * {@link localProvider} turns both on ({@link CHAT_REPETITION}). `profile` (a diagnostic; default
   * false) adds `stages` to the `read` and `done` messages: the decoder's milliseconds per stage
   * of reading the prompt, then of the tokens generated; and `helperShare`, the share of the work
   * shared with helper Workers that they ran (null on one thread).
   */
  async *generate(prompt, { maxTokens = DEFAULT_MAX_TOKENS, signal, temperature = 0, topP = 1, seed = 0, repeatPenalty = 1, repeatLastN = 64, repeatStop = 0, profile = false } = {}) {
    await this.ready;
    const id = this.nextId++;
    const queue = [];
    let wake = null;
    this.jobs.set(id, { push: (message) => { queue.push(message); wake?.(); } });
    const abort = () => this.worker.postMessage({ type: 'abort', id });
    signal?.addEventListener('abort', abort, { once: true });
    this.worker.postMessage({ type: 'generate', id, prompt, maxTokens, temperature, topP, seed, repeatPenalty, repeatLastN, repeatStop, profile: profile === true });
    try {
      for (;;) {
        while (!queue.length) await new Promise((resolve) => (wake = resolve));
        const message = queue.shift();
        if (message.error) throw message.error;
        yield message;
        if (message.type === 'done') return;
      }
    } finally {
      signal?.removeEventListener('abort', abort);
      if (this.jobs.has(id)) abort();
    }
  }

  /**
   * Reads `prompt` into the model's prefix cache without generating, so that a later prompt that
   * begins with it reads only the rest (a system prompt read while the reader reads). Resolves
   * with the worker's `read` message (`promptTokens`, `cachedTokens`, `ms`); `signal` aborts it
   * (resolving with `null`: what was read stays cached).
   */
  async prefill(prompt, { signal } = {}) {
    let read = null;
    for await (const message of this.generate(prompt, { maxTokens: 0, signal })) {
      if (message.type === 'read') read = message;
    }
    return read;
  }

  /** Ends the Worker (and frees the model). */
  close() {
    this.worker.terminate();
  }
}

/**
 * The threads a {@link LocalModel} runs on by default: on a cross-origin isolated page (COOP
 * `same-origin` and COEP `require-corp` or `credentialless`, so shared memory is allowed) whose
 * browser has `SharedArrayBuffer`, the browser's logical processors, at most 4; elsewhere 1.
 */
export function defaultThreads() {
  if (globalThis.crossOriginIsolated !== true || typeof SharedArrayBuffer !== 'function') return 1;
  return Math.min(4, Math.max(1, globalThis.navigator?.hardwareConcurrency ?? 1));
}

/** `threads` checked: a whole number from 1 to 16. */
function threadCount(threads) {
  if (!Number.isInteger(threads) || threads < 1 || threads > 16) {
    throw new RangeError(`LocalModel's threads must be a whole number from 1 to 16, not ${threads}`);
  }
  return threads;
}

/** Fails a job: loading rejects, a generation's iterator throws. */
function fail(job, name, message) {
  const error = new Error(message);
  error.name = name;
  if (job.reject) job.reject(error);
  else job.push({ error });
}

/**
 * A conversation in ChatML (`<|im_start|>role\n…<|im_end|>`), ending with the assistant's turn
 * opened: SmolLM2's, Qwen's and most small instruct models' template. Tool calls and results are
 * left out (the model is offered no tools).
 */
export function chatmlPrompt(messages) {
  let prompt = '';
  for (const message of messages) {
    const text = typeof message.content === 'string' ? message.content : '';
    if (!['system', 'user', 'assistant'].includes(message.role) || !text) continue;
    prompt += `<|im_start|>${message.role}\n${text}<|im_end|>\n`;
  }
  return `${prompt}<|im_start|>assistant\n`;
}

/**
 * The `provider` option for `Lectern.open`: `{ kind: 'custom', local: true, model, stream, call }`.
 * `call` turns Lectern's OpenAI-format request into a prompt (`template`, default
 * {@link chatmlPrompt}) and its `temperature`, `top_p` and `seed` into the decoder's sampling
 * (none: greedy), streams the model's text back as OpenAI chunks, and reports the usage
 * (prompt tokens, of them read from the cache, completion tokens). options: `model` (the name in
 * usage, default `'local'`), `maxTokens` (default {@link DEFAULT_MAX_TOKENS}), `template`,
 * `repeatPenalty`, `repeatLastN` and `repeatStop` (defaults {@link CHAT_REPETITION}; an answer
 * stopped for repeating itself finishes as `stop`), and any call-policy option to override the
 * local defaults.
 */
export function localProvider(localModel, options = {}) {
  if (!(localModel instanceof LocalModel)) throw new TypeError('localProvider needs a LocalModel');
  const {
    model = 'local',
    maxTokens = DEFAULT_MAX_TOKENS,
    template = chatmlPrompt,
    repeatPenalty = CHAT_REPETITION.repeatPenalty,
    repeatLastN = CHAT_REPETITION.repeatLastN,
    repeatStop = CHAT_REPETITION.repeatStop,
    ...policy
  } = options;
  return {
    ...policy,
    kind: 'custom',
    local: true,
    model,
    stream: true,
    maxTokens,
    call: (request, callOptions = {}) => chunks(localModel, template(request.messages ?? []), {
      model,
      maxTokens: request.max_tokens ?? request.max_completion_tokens ?? maxTokens,
      temperature: request.temperature ?? 0,
      topP: request.top_p ?? 1,
      seed: request.seed ?? Math.floor(Math.random() * 2 ** 32),
      repeatPenalty,
      repeatLastN,
      repeatStop,
      signal: callOptions.signal,
    }),
  };
}

/** The model's messages as OpenAI chat-completion chunks. */
async function* chunks(localModel, prompt, { model, signal, ...generation }) {
  const base = { id: `local-${Date.now()}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  let usage = null;
  for await (const message of localModel.generate(prompt, { ...generation, signal })) {
    if (message.type === 'read') usage = { prompt_tokens: message.promptTokens, prompt_tokens_details: { cached_tokens: message.cachedTokens } };
    if (message.type === 'delta') yield { ...base, choices: [{ index: 0, delta: { content: message.text }, finish_reason: null }] };
    if (message.type === 'done') {
      if (message.finish === 'abort') {
        const error = new Error('the local generation was aborted');
        error.name = 'AbortError';
        throw error;
      }
      yield {
        ...base,
        choices: [{ index: 0, delta: {}, finish_reason: message.finish === 'length' ? 'length' : 'stop' }],
        usage: { ...usage, completion_tokens: message.completionTokens, total_tokens: (usage?.prompt_tokens ?? 0) + message.completionTokens },
      };
    }
  }
}
