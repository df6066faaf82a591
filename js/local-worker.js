// Lectern's own decoder in a module Worker (`lectern_local_worker.js` beside `lectern_local.js`),
// driven by `lectern/local`. On a cross-origin isolated page asked for more than one thread, it
// runs the threaded build (`lectern_local_threads.js`) and starts helper Workers
// (`lectern_local_helper.js`) that share its matrix products and attention. Messages in:
// `{ type: 'load', id, url, cacheName, threads, relaxedSimd }` (relaxedSimd false: the plain SIMD build),
// `{ type: 'generate', id, prompt, maxTokens, temperature?, topP?, seed?, repeatPenalty?, repeatLastN?,
// repeatStop?, profile? }` (maxTokens 0: the prompt is only read into the prefix cache), `{ type: 'abort', id }`. Messages out:
// `progress` (`download` with bytes loaded and total, then `load`; `threads` with a message when
// it runs on fewer threads than asked), `loaded` (threads, relaxedSimd, ms; or `error`), then per
// generation `read` (prompt tokens, how many came from the cache, ms; with `profile`, `stages`: ms per
// stage of the decoder, and `helperShare`: the share of the parts shared with helper Workers that
// they ran, null when none were), `delta` (text), and `done`
// (tokens, finish: 'stop' | 'length' | 'repetition' | 'abort', ms; with `profile`, `stages` and
// `helperShare` of the generated tokens, the rest of `ms` being sampling and messages).

// Both builds' glue, imported statically (bundlers follow it; neither fetches its wasm until chosen).
import initOneThread, * as oneThread from './lectern_local.js';
import initThreaded, * as threadedGlue from './lectern_local_threads.js';

/** Prompt tokens read between two looks at the message queue (an abort is heard within one piece). */
const PIECE = 32;

let decoder = null;
/** Generations asked for and not yet done; of them, those aborted. */
const pending = new Set();
const aborted = new Set();

/** A macrotask turn without setTimeout's clamp: lets queued messages (an abort) run. */
const channel = new MessageChannel();
const turn = () => new Promise((resolve) => {
  channel.port1.onmessage = () => resolve();
  channel.port2.postMessage(0);
});

/** Bytes between two `download` progress messages. */
const PROGRESS_STEP = 4 << 20;

/** The model file's bytes: from the Cache API when cached (offline), else fetched and cached. */
async function modelBytes(url, cacheName) {
  const cache = cacheName && typeof caches !== 'undefined' ? await caches.open(cacheName).catch(() => null) : null;
  let response = cache ? await cache.match(url) : undefined;
  if (!response) {
    response = await fetch(url);
    if (!response.ok) throw new Error(`the model ${url} answered ${response.status}`);
    if (cache) await cache.put(url, response.clone()).catch(() => {});
  }
  return read(response);
}

/** A response's body, with `download` progress as it arrives, written into one buffer sized by
 * its length (grown if it has none or another): the model is not copied a second time. */
async function read(response) {
  const total = Number(response.headers.get('content-length')) || 0;
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  let bytes = new Uint8Array(total || PROGRESS_STEP);
  let loaded = 0;
  let told = 0;
  for (const reader = response.body.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (loaded + value.length > bytes.length) {
      const larger = new Uint8Array(Math.max(2 * bytes.length, loaded + value.length));
      larger.set(bytes.subarray(0, loaded));
      bytes = larger;
    }
    bytes.set(value, loaded);
    loaded += value.length;
    if (loaded - told >= PROGRESS_STEP) {
      told = loaded;
      postMessage({ type: 'progress', phase: 'download', loaded, total });
    }
  }
  postMessage({ type: 'progress', phase: 'download', loaded, total: total || loaded });
  return bytes.subarray(0, loaded);
}

/** How long a helper Worker may take to start before the decoder goes on without it. */
const HELPER_START_MS = 10_000;

/**
 * A module whose one function uses `i32x4.relaxed_dot_i8x16_i7x16_add_s`: it validates where the
 * engine has relaxed SIMD (Chromium, Firefox), not elsewhere (WebKit today).
 */
const RELAXED_SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // the magic and version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // type section: () -> v128
  0x03, 0x02, 0x01, 0x00, // function section: one function of that type
  0x0a, 0x3d, 0x01, 0x3b, 0x00, // code section: one body of 59 bytes, no locals
  ...[0, 1, 2].flatMap(() => [0xfd, 0x0c, ...new Array(16).fill(0)]), // three v128.const 0
  0xfd, 0x93, 0x02, // i32x4.relaxed_dot_i8x16_i7x16_add_s (0xfd 275)
  0x0b, // end
]);

/** Whether the relaxed-SIMD builds can run here. */
const hasRelaxedSimd = () => {
  try {
    return WebAssembly.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
};

async function load({ id, url, cacheName, threads = 1, relaxedSimd = true }) {
  const started = performance.now();
  const relaxed = relaxedSimd && hasRelaxedSimd();
  const threaded = threads > 1 && canShareMemory() ? await threadedBuild(relaxed) : null;
  const glue = threaded ? threadedGlue : oneThread;
  if (!threaded) {
    // Each URL written out whole: bundlers emit the files a `new URL(…, import.meta.url)` names.
    const wasm = relaxed
      ? new URL('./lectern_local_relaxed_bg.wasm', import.meta.url)
      : new URL('./lectern_local_bg.wasm', import.meta.url);
    await initOneThread({ module_or_path: wasm });
  }
  const bytes = await modelBytes(url, cacheName);
  postMessage({ type: 'progress', phase: 'load' });
  decoder = new glue.LocalDecoder(bytes);
  if (threaded) {
    const pool = { handle: decoder.helperHandle(), deadMask: decoder.helperDeadMask() };
    const helpers = Array.from({ length: threads - 1 }, (_, slot) => startHelper(threaded, { ...pool, slot }));
    const serving = (await Promise.all(helpers)).filter(Boolean).length;
    // A helper posts `serving` just before it enters the pool's loop.
    for (let wait = 0; decoder.threads() < 1 + serving && wait < 100; wait += 1) await new Promise((r) => setTimeout(r, 1));
  }
  postMessage({ type: 'loaded', id, threads: decoder.threads(), relaxedSimd: relaxed, ms: performance.now() - started });
}

/** Whether memory can be shared with helper Workers; if not, says why (the model runs on one thread). */
function canShareMemory() {
  const why = globalThis.crossOriginIsolated !== true
    ? 'the page is not cross-origin isolated (COOP/COEP)'
    : typeof SharedArrayBuffer !== 'function' ? 'this browser has no SharedArrayBuffer' : null;
  if (why) postMessage({ type: 'progress', phase: 'threads', message: `running on one thread: ${why}` });
  return !why;
}

/** The threaded build (with relaxed SIMD when `relaxed`), compiled and instantiated on a new
 * shared memory; `null` (and the single-thread build is used) when this browser cannot run it. */
async function threadedBuild(relaxed) {
  try {
    const url = relaxed
      ? new URL('./lectern_local_threads_relaxed_bg.wasm', import.meta.url)
      : new URL('./lectern_local_threads_bg.wasm', import.meta.url);
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url.pathname.split('/').pop()} answered ${response.status}`);
    const module = await WebAssembly.compile(await response.arrayBuffer());
    const wasm = await initThreaded({ module_or_path: module });
    return { module, memory: wasm.memory };
  } catch (error) {
    postMessage({ type: 'progress', phase: 'threads', message: `running on one thread: ${error?.message ?? error}` });
    return null;
  }
}

/** A helper Worker serving the decoder's pool (`handle`) in `slot` (`deadMask`: the word it marks
 * if its wasm traps); resolves with whether it serves. One that cannot be made, does not start in
 * time, or fails, is ended and said to be so in a `threads` progress message. */
function startHelper({ module, memory }, { handle, deadMask, slot }) {
  return new Promise((resolve) => {
    let helper = null;
    const end = (why) => {
      helper?.terminate();
      postMessage({ type: 'progress', phase: 'threads', message: `a helper thread ${why}` });
      resolve(false);
    };
    try {
      helper = new Worker(new URL('./lectern_local_helper.js', import.meta.url), { type: 'module' });
    } catch (error) {
      // Where this Worker may not start Workers (a Content-Security-Policy): no helper.
      return end(`could not start: ${error?.message ?? error}`);
    }
    let started = false;
    const timer = setTimeout(() => end('did not start in time'), HELPER_START_MS);
    helper.onmessage = ({ data }) => {
      clearTimeout(timer);
      if (data.type === 'serving') {
        started = true;
        resolve(true);
      } else end(`failed: ${data.message}`);
    };
    helper.onerror = (event) => {
      event.preventDefault?.();
      clearTimeout(timer);
      end(started ? `failed: ${event.message}` : `did not start: ${event.message || 'its script did not load'}`);
    };
    try {
      helper.postMessage({ module, memory, handle, deadMask, slot });
    } catch (error) {
      // WebKit cannot send a compiled module or a shared memory to a Worker started by a Worker.
      clearTimeout(timer);
      end(`could not be given the decoder: ${error?.message ?? error}`);
    }
  });
}

async function generate({ id, prompt, maxTokens, temperature = 0, topP = 1, seed = 0, repeatPenalty = 1, repeatLastN = 64, repeatStop = 0, profile = false }) {
  decoder.setSampling(temperature, topP, seed >>> 0, repeatPenalty, repeatLastN >>> 0, repeatStop >>> 0);
  decoder.setProfiling(profile);
  decoder.takeProfile();
  if (profile) helperShareSince();
  const tokens = decoder.encode(prompt);
  const started = performance.now();
  const kept = decoder.keepPrefix(tokens);
  for (let at = kept; at < tokens.length; at += PIECE) {
    await turn();
    if (aborted.has(id)) return finish(id, 'abort', 0, started, undefined, profile);
    const end = Math.min(at + PIECE, tokens.length);
    // Only the last piece's last token has logits worth the output layer, and only for an answer.
    if (end === tokens.length && maxTokens > 0) decoder.read(tokens.subarray(at, end));
    else decoder.readAhead(tokens.subarray(at, end));
  }
  const readMs = performance.now() - started;
  const stages = profile ? stageTimes() : undefined;
  const helperShare = profile ? helperShareSince() : undefined;
  postMessage({ type: 'read', id, promptTokens: tokens.length, cachedTokens: kept, ms: readMs, stages, helperShare });
  const stops = new Set(decoder.stopTokens());
  const text = new TextDecoder();
  const generating = performance.now();
  let count = 0;
  while (count < maxTokens) {
    await turn();
    if (aborted.has(id)) return finish(id, 'abort', count, generating, text, profile);
    const token = decoder.next();
    count += 1;
    if (stops.has(token)) return finish(id, 'stop', count, generating, text, profile);
    const delta = text.decode(decoder.tokenBytes(token), { stream: true });
    if (delta) postMessage({ type: 'delta', id, text: delta });
    if (decoder.answerRepeats()) return finish(id, 'repetition', count, generating, text, profile);
  }
  return finish(id, 'length', count, generating, text, profile);
}

/** The parts shared with helpers and run by them when last asked ([shared, helpers']). */
let partsBefore = [0, 0];

/** The share of the parts shared since the last call that the helper Workers ran (null: none shared). */
function helperShareSince() {
  const [shared, helpers] = decoder.sharedParts();
  const share = shared > partsBefore[0] ? (helpers - partsBefore[1]) / (shared - partsBefore[0]) : null;
  partsBefore = [shared, helpers];
  return share;
}

/** The decoder's time per stage since the last call, `{ [stage]: ms }`. */
function stageTimes() {
  const ms = decoder.takeProfile();
  return Object.fromEntries(decoder.constructor.profileStages().map((name, i) => [name, ms[i]]));
}

function finish(id, reason, completionTokens, since, text, profile = false) {
  pending.delete(id);
  aborted.delete(id);
  const rest = text?.decode() ?? '';
  if (rest) postMessage({ type: 'delta', id, text: rest });
  const stages = profile ? stageTimes() : undefined;
  const helperShare = profile ? helperShareSince() : undefined;
  postMessage({ type: 'done', id, finish: reason, completionTokens, ms: performance.now() - since, stages, helperShare });
}

let queue = Promise.resolve();
onmessage = ({ data }) => {
  if (data.type === 'abort') {
    // An abort after its generation ended is nothing to remember.
    if (pending.has(data.id)) aborted.add(data.id);
    return;
  }
  if (data.type === 'generate') pending.add(data.id);
  // One job at a time, in order; an error is told to whoever asked.
  queue = queue.then(() => (data.type === 'load' ? load(data) : generate(data))).catch((error) => {
    pending.delete(data.id);
    aborted.delete(data.id);
    postMessage({ type: 'error', id: data.id, name: error?.name ?? 'Error', message: String(error?.message ?? error) });
  });
};
