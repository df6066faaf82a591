// A scripted stand-in for the browser's Prompt API (`LanguageModel`, as webmachinelearning/prompt-api's
// explainer describes it), for Node and for test pages: the four availability states; create()
// needing the page's user activation while the model is downloadable or downloading, with
// `downloadprogress` events (0 and 1 at least, also with nothing to download); sessions with
// initialPrompts, clone() and destroy(); prompt() and promptStreaming() (a ReadableStream of the
// answer's pieces, each only the new text) with abort signals and responseConstraint (answered in
// JSON holding the schema's required fields, else a SyntaxError); measureContextUsage,
// contextUsage and contextWindow (`legacy: true`: only the older measureInputUsage, inputUsage,
// inputQuota and quotaoverflow); a prompt that does not fit rejects with a QuotaExceededError
// (`requested`, `quota`); an answer that carries the session past its window fires
// `contextoverflow`. Tokens are counted as characters / 4 (a message: + 2). It imports nothing.
//
//   const standIn = installPromptApiStandIn(globalThis, { availability: 'downloadable' });
//   standIn.script('Syme is a poet.', ['re', 'pe', 'at', 'at']);   // the next answers
//   standIn.userActivation = true;                                  // Node: a gesture (a page uses its own)

const tokens = (text) => Math.ceil(String(text).length / 4);
const promptTokens = (prompts) => prompts.reduce((sum, p) => sum + tokens(p.content) + 2, 0);
/** Rejects with the signal's reason once it aborts (never settles otherwise). */
const aborted = (signal) =>
  new Promise((_, reject) => {
    if (signal?.aborted) reject(signal.reason);
    else signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
/** Resolves after `ms`, or rejects when `signal` aborts first. */
const later = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });

/**
 * A `downloadprogress` event (`loaded` 0–1, `total` 1): a plain Event, as ProgressEvent's `loaded`
 * is a whole number in engines that have not taken the explainer's change.
 */
function progressEvent(loaded) {
  return Object.assign(new Event('downloadprogress'), { loaded, total: 1 });
}

/**
 * Installs the stand-in as `target.LanguageModel`; returns its controls. options: `availability`
 * (default 'available'), `contextWindow` (tokens, default 4096), `languages` (supported language
 * tags, default any), `downloadSteps` (the `loaded` values a download reports, default 0, ¼, ½, ¾,
 * 1), `stepMs` (between them and between an answer's pieces, default 5), `measureScale` (what
 * measureContextUsage reports, times the true count: below 1 it under-reports, default 1),
 * `legacy` (the older names only), `reply(input, { responseConstraint })` (the answer when none is
 * scripted: a string, an array of pieces, or `{ json }`).
 */
export function installPromptApiStandIn(target = globalThis, options = {}) {
  const control = {
    availability: options.availability ?? 'available',
    contextWindow: options.contextWindow ?? 4096,
    languages: options.languages ?? null,
    downloadSteps: options.downloadSteps ?? [0, 0.25, 0.5, 0.75, 1],
    stepMs: options.stepMs ?? 5,
    measureScale: options.measureScale ?? 1,
    reply: options.reply ?? ((input) => `You asked: ${input}`),
    /** `true` / `false` overrides the page's own user activation (Node has none: set it there). */
    userActivation: undefined,
    /** Every session made, in order: `{ id, parent, initialPrompts, destroyed, prompts, session }`. */
    sessions: [],
    /** Every create() and availability() call: `{ method, options, activation, outcome }`. */
    calls: [],
    replies: [],
    /** Queues the next answers (in order): a string, an array of pieces, or `{ json, pieces? }`. */
    script(...replies) {
      this.replies.push(...replies);
    },
  };
  let lastGesture = null; // a browser without navigator.userActivation: the last trusted input event
  if (typeof target.addEventListener === 'function' && !target.navigator?.userActivation) {
    for (const type of ['pointerdown', 'mousedown', 'keydown', 'click']) {
      target.addEventListener(type, (e) => e.isTrusted && (lastGesture = performance.now()), true);
    }
  }
  const activated = () => {
    if (control.userActivation !== undefined) return control.userActivation;
    const activation = target.navigator?.userActivation;
    if (activation) return activation.isActive;
    return lastGesture !== null && performance.now() - lastGesture < 5000;
  };
  const supported = (opts = {}) => {
    if (!control.languages) return true;
    const wanted = [...(opts.expectedInputs ?? []), ...(opts.expectedOutputs ?? [])].flatMap((e) => e.languages ?? []);
    return wanted.every((tag) => control.languages.includes(tag.split('-')[0]));
  };

  let download = null; // the download under way: its promise and the monitors told of its progress
  function startDownload() {
    control.availability = 'downloading';
    const monitors = new Set();
    const promise = (async () => {
      for (const loaded of control.downloadSteps) {
        await later(control.stepMs);
        for (const m of monitors) m.dispatchEvent(progressEvent(loaded));
      }
      control.availability = 'available';
      download = null;
    })();
    return (download = { promise, monitors });
  }

  const overflowType = options.legacy ? 'quotaoverflow' : 'contextoverflow';

  class LanguageModel extends EventTarget {
    #record;
    #prompts;
    #usage;
    #destroyed = false;
    #stops = new Set();

    constructor(record, usage) {
      super();
      this.#record = record;
      this.#prompts = record.initialPrompts;
      this.#usage = usage;
      this['on' + overflowType] = null;
    }

    static async availability(opts = {}) {
      const outcome = supported(opts) ? control.availability : 'unavailable';
      control.calls.push({ method: 'availability', options: opts, outcome });
      return outcome;
    }

    static async create(opts = {}) {
      const call = { method: 'create', options: opts, activation: activated(), outcome: null };
      control.calls.push(call);
      const fail = (name, message) => {
        call.outcome = name;
        return Promise.reject(new DOMException(message, name));
      };
      if (opts.signal?.aborted) {
        call.outcome = 'aborted';
        return Promise.reject(opts.signal.reason);
      }
      if (control.availability === 'unavailable' || !supported(opts)) return fail('NotSupportedError', 'The model is not available.');
      const needsDownload = control.availability !== 'available';
      if (needsDownload && !call.activation) {
        return fail('NotAllowedError', 'Requires a user gesture when availability is "downloading" or "downloadable".');
      }
      const monitor = new EventTarget();
      opts.monitor?.(monitor);
      if (needsDownload) {
        const running = download ?? startDownload();
        running.monitors.add(monitor);
        await (opts.signal ? Promise.race([running.promise, aborted(opts.signal)]) : running.promise);
      } else {
        for (const loaded of [0, 1]) monitor.dispatchEvent(progressEvent(loaded));
      }
      opts.signal?.throwIfAborted();
      const initialPrompts = (opts.initialPrompts ?? []).map(({ role, content }) => ({ role, content }));
      const needed = promptTokens(initialPrompts);
      if (needed > control.contextWindow) {
        call.outcome = 'QuotaExceededError';
        throw quotaExceeded(needed, control.contextWindow);
      }
      call.outcome = 'created';
      return LanguageModel.#make(null, initialPrompts, needed);
    }

    static #make(parent, initialPrompts, usage) {
      const record = { id: control.sessions.length + 1, parent, initialPrompts, destroyed: false, prompts: [] };
      const session = new LanguageModel(record, usage);
      control.sessions.push(Object.assign(record, { session }));
      return session;
    }

    async clone({ signal } = {}) {
      await later(0, signal);
      this.#alive();
      return LanguageModel.#make(this.#record.id, this.#prompts, this.#usage);
    }

    destroy() {
      if (this.#destroyed) return;
      this.#destroyed = this.#record.destroyed = true;
      for (const stop of this.#stops) stop.abort(new DOMException('The session was destroyed.', 'AbortError'));
    }

    #alive() {
      if (this.#destroyed) throw new DOMException('The session was destroyed.', 'InvalidStateError');
    }

    #measure(input, opts = {}) {
      const constraint = opts.responseConstraint ? tokens(JSON.stringify(opts.responseConstraint)) : 0;
      return tokens(input) + 2 + constraint;
    }

    async measureTokens(input, opts = {}) {
      this.#alive();
      return Math.round(this.#measure(input, opts) * control.measureScale);
    }

    /** The answer's pieces, as they are made; the prompt's record notes what came of it. */
    async *#answer(input, opts, streaming) {
      this.#alive();
      const record = { input, streaming, responseConstraint: opts.responseConstraint, signal: opts.signal, outcome: 'running' };
      this.#record.prompts.push(record);
      const stop = new AbortController();
      this.#stops.add(stop);
      if (opts.signal?.aborted) stop.abort(opts.signal.reason);
      else opts.signal?.addEventListener('abort', () => stop.abort(opts.signal.reason), { once: true });
      try {
        stop.signal.throwIfAborted();
        const needed = this.#measure(input, opts);
        if (needed > this.contextWindowTokens - this.#usage) throw quotaExceeded(needed, this.contextWindowTokens - this.#usage);
        this.#usage += needed;
        const reply = control.replies.length ? control.replies.shift() : control.reply(input, opts);
        for (const piece of pieces(reply, opts.responseConstraint)) {
          await later(control.stepMs, stop.signal);
          this.#usage += tokens(piece);
          if (this.#usage > this.contextWindowTokens) {
            this.#usage = this.contextWindowTokens;
            this.dispatchEvent(new Event(overflowType));
            this['on' + overflowType]?.(new Event(overflowType));
          }
          yield piece;
        }
        record.outcome = 'answered';
      } catch (e) {
        record.outcome = stop.signal.aborted ? 'aborted' : e?.name ?? 'failed';
        throw e;
      } finally {
        this.#stops.delete(stop);
      }
    }

    async prompt(input, opts = {}) {
      let text = '';
      for await (const piece of this.#answer(input, opts, false)) text += piece;
      return text;
    }

    promptStreaming(input, opts = {}) {
      const answer = this.#answer(input, opts, true);
      return new ReadableStream({
        async pull(controller) {
          try {
            const { done, value } = await answer.next();
            if (done) controller.close();
            else controller.enqueue(value);
          } catch (e) {
            controller.error(e);
          }
        },
        cancel: () => answer.return(),
      });
    }

    get usedTokens() {
      return this.#usage;
    }

    get contextWindowTokens() {
      return control.contextWindow;
    }
  }

  // The explainer's names, or (legacy) the ones it renamed.
  const names = options.legacy
    ? { measure: 'measureInputUsage', usage: 'inputUsage', window: 'inputQuota' }
    : { measure: 'measureContextUsage', usage: 'contextUsage', window: 'contextWindow' };
  const proto = LanguageModel.prototype;
  Object.defineProperty(proto, names.measure, { value: proto.measureTokens, configurable: true });
  Object.defineProperty(proto, names.usage, { get() { return this.usedTokens; }, configurable: true });
  Object.defineProperty(proto, names.window, { get() { return this.contextWindowTokens; }, configurable: true });

  target.LanguageModel = LanguageModel;
  return control;
}

/** A QuotaExceededError DOMException with the explainer's `requested` and `quota`. */
function quotaExceeded(requested, quota) {
  return Object.assign(new DOMException(`The input is too large: ${requested} tokens, ${quota} available.`, 'QuotaExceededError'), {
    requested,
    quota,
  });
}

/** A scripted reply's pieces; with a JSON schema constraint, JSON holding its required fields (else a SyntaxError, as the API's). */
function pieces(reply, constraint) {
  const json = reply && typeof reply === 'object' && !Array.isArray(reply) && 'json' in reply;
  const text = json ? JSON.stringify(reply.json) : Array.isArray(reply) ? reply.join('') : String(reply);
  if (constraint && !(constraint instanceof RegExp)) {
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const missing = (constraint.required ?? []).filter((key) => value === null || typeof value !== 'object' || !(key in value));
    if (value === undefined || missing.length) throw new DOMException('The model could not answer in the required format.', 'SyntaxError');
  }
  if (json) return reply.pieces ?? text.match(/.{1,6}/gs) ?? [];
  if (Array.isArray(reply)) return reply;
  return text.match(/\S+\s*|\s+/g) ?? [];
}
