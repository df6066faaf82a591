// Lectern ⇄ the browser's own model (the Prompt API, `globalThis.LanguageModel`) as Lectern's
// `custom` provider: no model file to ship, no server.
//
//   import { Lectern } from 'lectern';
//   import { downloadPromptApiModel, promptApiAvailability, promptApiProvider } from 'lectern/prompt-api';
//
//   if ((await promptApiAvailability()) === 'downloadable') {
//     button.onclick = () => downloadPromptApiModel({ onProgress: ({ loaded }) => (bar.value = loaded) });
//   }
//   const lectern = await Lectern.open({ provider: promptApiProvider() });
//
// This module imports nothing. The API is a page's only (not in Workers), and this provider offers
// the model no tools.

/**
 * A failure this module names: `code` is `'unavailable'`, `'needs-download'`,
 * `'needs-user-activation'`, `'too-long'` or `'bad-answer'`.
 */
export class PromptApiError extends Error {
  constructor(code, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'PromptApiError';
    this.code = code;
    for (const [key, value] of Object.entries(details)) if (key !== 'cause') this[key] = value;
  }
}

/** The JSON schema of a cited answer (`cited: true`): the answer, and the numbers of the passages it comes from. */
export const CITED_SCHEMA = frozen({
  type: 'object',
  properties: { answer: { type: 'string' }, passages: { type: 'array', items: { type: 'integer' } } },
  required: ['answer', 'passages'],
});

function frozen(value) {
  for (const inner of Object.values(value)) if (typeof inner === 'object') frozen(inner);
  return Object.freeze(value);
}

const CITED_INSTRUCTION =
  'Answer in JSON: "answer" is your answer, "passages" the numbers of the passages it comes from ([] when none).';

const api = () => globalThis.LanguageModel;

/** `expectedInputs` / `expectedOutputs` of `options`, the part `availability` and `create` share. */
function expected({ expectedInputs, expectedOutputs }) {
  const out = {};
  if (expectedInputs !== undefined) out.expectedInputs = expectedInputs;
  if (expectedOutputs !== undefined) out.expectedOutputs = expectedOutputs;
  return out;
}

/**
 * What the browser's model can do now: `'available'` (ready), `'downloadable'` (a download must be
 * started, by {@link downloadPromptApiModel} in a user gesture), `'downloading'`, or `'unavailable'`
 * (also when the browser has no `LanguageModel`). `options`: `expectedInputs`, `expectedOutputs`.
 */
export async function promptApiAvailability(options = {}) {
  const LanguageModel = api();
  if (typeof LanguageModel?.availability !== 'function') return 'unavailable';
  return LanguageModel.availability(expected(options));
}

/**
 * Downloads the browser's model, reporting `onProgress({ loaded })` (0 to 1); resolves once it is
 * ready. **Call it from a user gesture** (a click or key handler, before any `await` there): the
 * browser downloads only with the page's transient user activation, and otherwise rejects, here with
 * a {@link PromptApiError} of code `'needs-user-activation'` (its `cause` the browser's
 * `NotAllowedError`). options: `onProgress`, `signal` (stops waiting), `expectedInputs`, `expectedOutputs`.
 */
export async function downloadPromptApiModel(options = {}) {
  const { onProgress, signal } = options;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError('downloadPromptApiModel: onProgress must be a function');
  }
  const LanguageModel = api();
  if (typeof LanguageModel?.create !== 'function') throw unavailable('this browser has no Prompt API (globalThis.LanguageModel)');
  let session;
  try {
    // create() before any await: the gesture's activation is checked when it is called.
    session = await LanguageModel.create({
      ...expected(options),
      ...(signal ? { signal } : {}),
      monitor: (m) => m.addEventListener('downloadprogress', (e) => onProgress?.({ loaded: e.loaded })),
    });
  } catch (e) {
    if (e?.name !== 'NotAllowedError') throw reported(e);
    throw new PromptApiError(
      'needs-user-activation',
      `The browser refused to download its model (NotAllowedError: ${e.message}): call downloadPromptApiModel ` +
        'from a click or key handler, before any await (or the model is turned off by the user or a policy)',
      { cause: e },
    );
  }
  session.destroy();
}

function unavailable(why) {
  return new PromptApiError('unavailable', `The browser's model is unavailable: ${why}`);
}

/** `LanguageModel` when a session can be made without a download, else the error saying why not. */
async function usableApi(options) {
  const LanguageModel = api();
  if (typeof LanguageModel?.create !== 'function') throw unavailable('this browser has no Prompt API (globalThis.LanguageModel)');
  const state = await LanguageModel.availability(options);
  if (state === 'available') return LanguageModel;
  if (state === 'downloadable' || state === 'downloading') {
    throw new PromptApiError(
      'needs-download',
      `The browser's model is ${state === 'downloading' ? 'still downloading' : 'not downloaded yet'}: ` +
        'call downloadPromptApiModel() from a click, and ask once it resolved',
      { availability: state },
    );
  }
  throw unavailable(`LanguageModel.availability() answered '${state}'`);
}

/** An error of the API as the agent should report it: a `QuotaExceededError` says what did not fit. */
function reported(e) {
  if (e?.name !== 'QuotaExceededError') return e;
  const numbers = e.requested === undefined ? '' : `: ${e.requested} tokens, ${e.quota ?? e.contextWindow ?? '?'} available`;
  const error = new Error(
    `The browser's model refused the prompt as too long for its context window (QuotaExceededError${numbers}); ` +
      'shorten the system message or the conversation',
    { cause: e },
  );
  error.name = 'QuotaExceededError';
  if (e.requested !== undefined) error.requested = e.requested;
  if ((e.quota ?? e.contextWindow) !== undefined) error.quota = e.quota ?? e.contextWindow;
  return error;
}

/** A message's text (`null` content, or text parts). */
function text(message) {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return message.content.map((part) => (part?.type === 'text' ? part.text : '')).join('');
}

/**
 * The request as a session: `initialPrompts` (the system message, then the earlier user and
 * assistant turns; tool calls and results left out) and the `question` (the last user message).
 */
function conversation(messages, cited) {
  const system = messages.filter((m) => m.role === 'system').map(text).filter(Boolean);
  if (cited) system.push(CITED_INSTRUCTION);
  const turns = messages
    .filter((m) => (m.role === 'user' || m.role === 'assistant') && text(m))
    .map((m) => ({ role: m.role, content: text(m) }));
  const last = turns.pop();
  if (last?.role !== 'user') throw new TypeError('promptApiProvider: the request ends without a user message to ask');
  const initialPrompts = system.length ? [{ role: 'system', content: system.join('\n\n') }, ...turns] : turns;
  return { initialPrompts, question: last.content };
}

/** A cited answer's JSON as text: the answer, then ` [n]` for each passage it names. */
function citedText(json) {
  let value;
  try {
    value = JSON.parse(json);
  } catch {
    throw new PromptApiError('bad-answer', `The browser's model did not answer the JSON asked for: ${json.slice(0, 120)}`);
  }
  const passages = Array.isArray(value?.passages) ? value.passages : [];
  const numbers = [...new Set(passages.filter((n) => Number.isInteger(n) && n > 0))];
  const answer = typeof value?.answer === 'string' ? value.answer.trim() : '';
  return [answer, ...numbers.map((n) => `[${n}]`)].filter(Boolean).join(' ');
}

/** Resolves as `promise` does, or rejects with the signal's reason once it aborts. */
function unlessAborted(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/** Base sessions by conversation (their initial prompts), the `limit` used last kept open. */
function baseSessions(limit) {
  const open = new Map();
  const drop = (session) => session.then((s) => s.destroy(), () => {});
  return {
    get(key, create) {
      let session = open.get(key);
      open.delete(key);
      if (!session) {
        session = create();
        session.catch(() => open.get(key) === session && open.delete(key));
      }
      open.set(key, session);
      for (const [oldest, old] of open) {
        if (open.size <= limit) break;
        open.delete(oldest);
        drop(old);
      }
      return session;
    },
    clear() {
      for (const session of open.values()) drop(session);
      open.clear();
    },
  };
}

/** The session's context use, under the explainer's names or their older ones. */
const usage = (s) => s.contextUsage ?? s.inputUsage ?? 0;
const windowOf = (s) => s.contextWindow ?? s.inputQuota ?? Infinity;

/** Tokens of `input` as the session counts them (`measureContextUsage`, or `measureInputUsage`), or null. */
function measure(session, input, options) {
  const fn = session.measureContextUsage ?? session.measureInputUsage;
  return typeof fn === 'function' ? fn.call(session, input, options) : null;
}

/**
 * The `provider` option for `Lectern.open`: `{ kind: 'custom', local: true, model, stream, call }`
 * over the browser's model. `call` keeps one base session per conversation (made with
 * `initialPrompts`: the system message and the earlier turns) and asks each question in a
 * `clone()` of it, destroyed after; it measures the question against what the session has left
 * first, streams `promptStreaming`'s pieces (or `prompt()` with `stream: false`), passes the call's
 * abort signal on, and ends with a usage estimate (prompt tokens from the session's counts,
 * answer tokens as characters / 4). Tools are not offered to this model; `temperature` and
 * `max_tokens` are the browser's to choose. A `response_format` JSON schema becomes the
 * prompt's `responseConstraint`.
 *
 * options: `model` (default `'prompt-api'`), `stream` (default true), `cited` (default false: the
 * model answers {@link CITED_SCHEMA} JSON, written out as the answer followed by ` [n]` for each
 * passage of the system message it names), `onContextOverflow({ contextUsage, contextWindow })`
 * (the session dropped part of its context during a prompt), `keepSessions` (base sessions kept
 * open, default 2), `expectedInputs` / `expectedOutputs` (as for `LanguageModel.create`), and any
 * call-policy option. The returned object's non-enumerable `destroy()` closes the open sessions.
 */
export function promptApiProvider(options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError('promptApiProvider: options must be an object');
  const { model = 'prompt-api', stream = true, cited = false, onContextOverflow, keepSessions = 2, ...rest } = options;
  const { expectedInputs, expectedOutputs, ...policy } = rest;
  const bad = (why) => {
    throw new TypeError(`promptApiProvider: ${why}`);
  };
  if (typeof model !== 'string' || !model) bad('model must be a non-empty string');
  if (typeof stream !== 'boolean' || typeof cited !== 'boolean') bad('stream and cited are true or false');
  if (onContextOverflow !== undefined && typeof onContextOverflow !== 'function') bad('onContextOverflow must be a function');
  if (!Number.isInteger(keepSessions) || keepSessions < 1) bad('keepSessions must be a whole number of at least 1');
  const sessionOptions = expected({ expectedInputs, expectedOutputs });
  const bases = baseSessions(keepSessions);

  async function call(request, { signal } = {}) {
    signal?.throwIfAborted();
    const LanguageModel = await usableApi(sessionOptions);
    const schema = request.response_format?.json_schema?.schema;
    const { initialPrompts, question } = conversation(request.messages ?? [], cited && !schema);
    const base = bases.get(JSON.stringify(initialPrompts), () => LanguageModel.create({ ...sessionOptions, initialPrompts }));
    let session;
    try {
      session = await (await unlessAborted(base, signal)).clone(signal ? { signal } : {});
    } catch (e) {
      throw reported(e);
    }
    signal?.addEventListener('abort', () => session.destroy(), { once: true });
    try {
      const constraint = schema ?? (cited ? CITED_SCHEMA : undefined);
      const promptOptions = { ...(signal ? { signal } : {}), ...(constraint ? { responseConstraint: constraint } : {}) };
      const prompt = await fitted(session, question, promptOptions);
      const answer = { session, question, promptOptions, prompt, cited: cited && !schema, onContextOverflow };
      return request.stream === true ? streamed(answer) : await whole(answer);
    } catch (e) {
      session.destroy();
      throw reported(e);
    }
  }

  const provider = { ...policy, kind: 'custom', local: true, model, stream, call };
  Object.defineProperty(provider, 'destroy', { value: () => bases.clear(), enumerable: false });
  return provider;
}

/** The prompt tokens the question will take (what the session holds and the question), after checking it fits. */
async function fitted(session, question, promptOptions) {
  const held = usage(session);
  const measured = await measure(session, question, promptOptions);
  if (measured === null) return held + Math.ceil(question.length / 4);
  const left = windowOf(session) - held;
  if (measured > left) {
    throw new PromptApiError(
      'too-long',
      `The question needs ${measured} tokens of the browser's model (measureContextUsage), but its session has ` +
        `${left} of ${windowOf(session)} left after the system message and earlier turns (${held}): shorten them`,
      { requested: measured, available: left },
    );
  }
  return held + measured;
}

/** Calls `onContextOverflow` whenever the session overflows (`contextoverflow`, once `quotaoverflow`); returns the unsubscribe. */
function watchOverflow(session, onContextOverflow) {
  if (!onContextOverflow) return () => {};
  const type = 'oncontextoverflow' in session || !('onquotaoverflow' in session) ? 'contextoverflow' : 'quotaoverflow';
  const heard = () => {
    try {
      onContextOverflow({ contextUsage: usage(session), contextWindow: windowOf(session) });
    } catch (e) {
      console.error('promptApiProvider: onContextOverflow threw', e);
    }
  };
  session.addEventListener(type, heard);
  return () => session.removeEventListener(type, heard);
}

const usageOf = (prompt, content) => {
  const completion = Math.ceil(content.length / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
};
const chunk = (content) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });

/** The answer as one chat completion (`prompt()`). */
async function whole({ session, question, promptOptions, prompt, cited, onContextOverflow }) {
  const unwatch = watchOverflow(session, onContextOverflow);
  try {
    const raw = await session.prompt(question, promptOptions);
    const content = cited ? citedText(raw) : raw;
    const message = { role: 'assistant', content };
    return { object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }], usage: usageOf(prompt, raw) };
  } finally {
    unwatch();
    session.destroy();
  }
}

/**
 * The answer as chat-completion chunks: each of `promptStreaming`'s pieces (the new text, not the
 * whole so far), then the finish with usage.
 */
async function* streamed({ session, question, promptOptions, prompt, cited, onContextOverflow }) {
  const reader = session.promptStreaming(question, promptOptions).getReader();
  let raw = '';
  let done = false;
  const unwatch = watchOverflow(session, onContextOverflow);
  try {
    while (!done) {
      let piece;
      try {
        ({ done, value: piece } = await reader.read());
      } catch (e) {
        throw reported(e);
      }
      if (done || !piece) continue;
      raw += piece;
      if (!cited) yield chunk(piece);
    }
    if (cited) yield chunk(citedText(raw));
    yield { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: usageOf(prompt, raw) };
  } finally {
    unwatch();
    if (!done) reader.cancel().catch(() => {});
    session.destroy();
  }
}
