// Lectern ⇄ wllama (llama.cpp compiled to wasm, `@wllama/wllama` on npm): an in-browser model
// as Lectern's `custom` provider, so a whole session runs with the network off.
//
//   import { Wllama } from '@wllama/wllama';
//   import { Lectern } from 'lectern';
//   import { loadWllamaModel, wllamaProvider } from 'lectern/wllama';
//
//   const wllama = new Wllama({ default: '/wllama/wasm/wllama.wasm' });
//   wllama.setCompat(null);                       // never fall back to wllama's CDN build
//   const ready = loadWllamaModel(wllama, '/models/SmolLM2-135M-Instruct.Q4_1.gguf', {
//     n_ctx: 2048, onProgress: ({ phase, loaded, total }) => bar.update(phase, loaded / total),
//   });
//   const lectern = await Lectern.open({ provider: wllamaProvider(wllama, { model: 'smollm2', ready }),
//                                        retrieval: { strategy: 'alwaysRetrieve', maxContextTokens: 300 } });
//
// This module imports nothing: it works with the wllama instance it is given.

/** The answer length of an in-browser model when neither Lectern nor the host sets one: ~20 s at ~12 tokens/s on one thread. */
export const DEFAULT_MAX_TOKENS = 256;

/**
 * The `provider` option for `Lectern.open`: `{ kind: 'custom', local: true, model, stream, call }`.
 * `call` turns Lectern's OpenAI-format request into `wllama.createChatCompletion` (messages,
 * tools, temperature, max_tokens, the abort signal), streams its chunks back, and adds the
 * usage wllama measured (from its `timings` when it reports no `usage`).
 *
 * options: `model` (the name in usage and events, default `'wllama'`), `stream` (default true),
 * `ready` (a promise the calls wait for, e.g. `loadWllamaModel(…)`: Lectern can open before the
 * model is loaded), `maxTokens` (the provider's answer cap, sent as each request's `max_tokens`;
 * default {@link DEFAULT_MAX_TOKENS}, so that a small model cannot ramble for minutes), `sampling`
 * (wllama sampling parameters: `top_k`, `top_p`, `min_p`, `penalty_repeat`, …), `completion`
 * (for a base model with no chat template: `true` for {@link completionPrompt}, or a function of
 * the messages returning `{ prompt, stop }`; the model then continues a plain-text prompt through
 * `wllama.createCompletion`, and is offered no tools), and any call-policy option (`timeouts`,
 * `maxRetries`, …) to override the local defaults.
 */
export function wllamaProvider(wllama, options = {}) {
  if (!wllama || typeof wllama.createChatCompletion !== 'function') {
    throw new TypeError('wllamaProvider needs a Wllama instance (with createChatCompletion)');
  }
  const { model = 'wllama', stream = true, ready, maxTokens = DEFAULT_MAX_TOKENS, sampling = {}, completion, ...policy } = options;
  const form = completion === true ? completionPrompt : completion;
  if (form !== undefined && typeof form !== 'function') {
    throw new TypeError('wllamaProvider: `completion` is true or a function (messages) => { prompt, stop }');
  }
  if (form && typeof wllama.createCompletion !== 'function') {
    throw new TypeError('wllamaProvider: `completion` needs a Wllama instance with createCompletion');
  }
  return {
    ...policy,
    kind: 'custom',
    local: true,
    model,
    stream,
    maxTokens, // the provider's answer cap: each request's max_tokens unless a turn sets one
    call: async (request, callOptions = {}) => {
      if (ready) await ready;
      const settings = { maxTokens, sampling };
      if (form) return complete(wllama, form, request, callOptions.signal, settings);
      const params = chatParams(request, callOptions.signal, settings);
      if (!params.stream) return withTimingsUsage(await wllama.createChatCompletion(params));
      return chunksWithUsage(await wllama.createChatCompletion(params));
    },
  };
}

/**
 * The completion form of a conversation, for a base model: the system message, then each turn as
 * `Question: …` / `Answer: …`, ending with `Answer:` for the model to continue; it stops at the
 * next `Question:` or a blank line. Tool calls and results are left out (the model gets no tools).
 */
export function completionPrompt(messages) {
  const parts = [];
  for (const message of messages) {
    const text = typeof message.content === 'string' ? message.content.trim() : '';
    if (!text) continue;
    if (message.role === 'system') parts.push(text, '');
    else if (message.role === 'user') parts.push(`Question: ${text}`);
    else if (message.role === 'assistant') parts.push(`Answer: ${text}`, '');
  }
  parts.push('Answer:');
  return { prompt: parts.join('\n'), stop: ['\nQuestion:', '\n\n'] };
}

/** One call in completion form: `createCompletion`, its text turned into chat-completion shape. */
async function complete(wllama, form, request, signal, { maxTokens, sampling }) {
  const { prompt, stop } = form(request.messages);
  const params = withCallSettings({ ...sampling, prompt }, request, signal, maxTokens);
  if (stop?.length) params.stop = stop;
  if (!params.stream) return withTimingsUsage(asChatCompletion(await wllama.createCompletion(params)));
  return chunksWithUsage(asChatChunks(await wllama.createCompletion(params)));
}

/** A text completion as a chat completion: the text is the assistant's content. */
function asChatCompletion(response) {
  const choices = (response.choices ?? []).map(({ text, index, finish_reason }) => ({
    index,
    message: { role: 'assistant', content: text.trim() },
    finish_reason,
  }));
  return { ...response, object: 'chat.completion', choices };
}

/** Text-completion chunks as chat-completion chunks (`delta.content`, the leading space after `Answer:` dropped). */
async function* asChatChunks(chunks) {
  let started = false;
  for await (const chunk of chunks) {
    const choices = (chunk.choices ?? []).map(({ text, index, finish_reason }) => {
      const content = started ? text : text.trimStart();
      started ||= content.length > 0;
      return { index, delta: { content }, finish_reason };
    });
    yield { ...chunk, object: 'chat.completion.chunk', choices };
  }
}

/** wllama's chat-completion parameters for Lectern's request. */
function chatParams(request, signal, { maxTokens, sampling }) {
  const params = withCallSettings({ ...sampling, messages: request.messages.map(toWllamaMessage) }, request, signal, maxTokens);
  if (request.tools?.length) params.tools = request.tools;
  if (request.tool_choice !== undefined && request.tools?.length) params.tool_choice = request.tool_choice;
  return params;
}

/** What every call takes from Lectern's request, chat or completion: stream, abort signal, temperature, answer length. */
function withCallSettings(params, request, signal, maxTokens) {
  params.stream = request.stream === true;
  if (signal) params.abortSignal = signal;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  const max = request.max_tokens ?? maxTokens;
  if (max !== undefined) params.max_tokens = max;
  return params;
}

/** wllama wants text content: an assistant message that only called tools gets `''`. */
function toWllamaMessage(message) {
  return message.content === null ? { ...message, content: '' } : message;
}

/** OpenAI usage from wllama's timings (`prompt_n` read, `cache_n` reused, `predicted_n` generated). */
function usageFromTimings(timings) {
  const cached = timings.cache_n ?? 0;
  return {
    prompt_tokens: (timings.prompt_n ?? 0) + cached,
    completion_tokens: timings.predicted_n ?? 0,
    prompt_tokens_details: { cached_tokens: cached },
  };
}

function hasUsage(usage) {
  return !!usage && (usage.prompt_tokens > 0 || usage.completion_tokens > 0);
}

function withTimingsUsage(completion) {
  if (hasUsage(completion.usage) || !completion.timings) return completion;
  return { ...completion, usage: usageFromTimings(completion.timings) };
}

/**
 * Passes wllama's chunks on; when the stream gave no usage, one last chunk carries the usage
 * from the last `timings` seen (the OpenAI `include_usage` shape: no choices, a `usage`).
 */
async function* chunksWithUsage(chunks) {
  let timings = null;
  let reported = false;
  for await (const chunk of chunks) {
    if (chunk.timings) timings = chunk.timings;
    if (hasUsage(chunk.usage)) reported = true;
    yield chunk;
  }
  if (!reported && timings) yield { choices: [], usage: usageFromTimings(timings) };
}

/**
 * Loads a GGUF model into `wllama` from `url` (same origin for an offline page), reporting
 * progress: `onProgress({ phase: 'download', loaded, total })` as bytes arrive (from wllama's
 * cache on a later visit), then `{ phase: 'load' }` while llama.cpp reads the weights, then
 * `{ phase: 'ready', loadMs }`. Every other option goes to `wllama.loadModelFromUrl`
 * (`n_ctx`, `n_batch`, `n_threads`, `useCache`, …). Resolves when the model can answer.
 */
export async function loadWllamaModel(wllama, url, options = {}) {
  const { onProgress = () => {}, ...params } = options;
  const started = performance.now();
  let downloaded = false;
  await wllama.loadModelFromUrl(url, {
    ...params,
    progressCallback: ({ loaded, total }) => {
      onProgress({ phase: 'download', loaded, total });
      if (!downloaded && total > 0 && loaded >= total) {
        downloaded = true;
        onProgress({ phase: 'load' });
      }
    },
  });
  onProgress({ phase: 'ready', loadMs: performance.now() - started });
}
