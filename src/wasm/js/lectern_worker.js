// Lectern's ingestion worker: the page's Lectern starts it (a module Worker)
// and hands it books to cut, embed and index, so that the page never freezes.
// Shipped beside lectern.js; it runs the ingestion module, lectern_ingest.js
// and its lectern_ingest_bg.wasm (which the page's module leaves out).
//
// Messages in:  { type: 'init' } · { type: 'ingest', id, job } ·
//               { type: 'index', id, vectors, dims, minChunks } (a stored book's unfinished index) ·
//               { type: 'embedTexts', id, embedder, texts } (queries, with the model kept loaded here) ·
//               { type: 'cancel', id } · { type: 'embedded', requestId, vectors | error }
// Messages out: { type: 'ready' } · { type: 'failed', message } ·
//               { type: 'progress', id, progress } · { type: 'embed', id, requestId, texts } ·
//               { type: 'prepared', id, result } (chunks and vectors, buffers transferred) ·
//               { type: 'done', id, snapshot? } (the index, transferred) ·
//               { type: 'vectors', id, vectors } (a Float32Array, transferred) · { type: 'error', id, error }
import init, { __lecternBuildIndex, __lecternEmbed, __lecternIngest } from './lectern_ingest.js';

const jobs = new Map(); // id -> AbortController
const embeds = new Map(); // requestId -> { resolve, reject }
let nextRequest = 1;

/** A thrown value as plain data the page turns back into the same `Error`. */
function describe(error) {
  const fields = {};
  if (error !== null && typeof error === 'object') {
    for (const [key, value] of Object.entries(error)) {
      try {
        fields[key] = structuredClone(value);
      } catch {
        // a field that cannot cross is left out
      }
    }
  }
  return { name: error?.name ?? 'Error', message: error?.message ?? String(error), fields };
}

/** The error the page described, rebuilt. */
function rebuild({ name, message, fields }) {
  const error = new Error(message);
  error.name = name;
  return Object.assign(error, fields);
}

/** The custom embedder's stand-in: asks the page to embed `texts`. */
function embedThroughPage(id) {
  return (texts) =>
    new Promise((resolve, reject) => {
      const requestId = nextRequest++;
      embeds.set(requestId, { resolve, reject });
      self.postMessage({ type: 'embed', id, requestId, texts });
    });
}

async function run(id, job) {
  const controller = new AbortController();
  jobs.set(id, controller);
  const progress = (p) => self.postMessage({ type: 'progress', id, progress: p });
  const embed = job.embedOnPage ? embedThroughPage(id) : undefined;
  const prepared = (result) =>
    self.postMessage({ type: 'prepared', id, result }, [result.book.buffer, result.vectors.buffer]);
  try {
    const snapshot = await __lecternIngest(job, progress, embed, controller.signal, prepared);
    self.postMessage({ type: 'done', id, snapshot }, snapshot ? [snapshot.buffer] : []);
  } catch (error) {
    self.postMessage({ type: 'error', id, error: describe(error) });
  } finally {
    jobs.delete(id);
  }
}

/** Builds the index of a stored book whose index was never finished. */
function index(id, vectors, dims, minChunks) {
  try {
    const snapshot = __lecternBuildIndex(vectors, dims, minChunks);
    self.postMessage({ type: 'done', id, snapshot }, snapshot ? [snapshot.buffer] : []);
  } catch (error) {
    self.postMessage({ type: 'error', id, error: describe(error) });
  }
}

/** Embeds `texts` (a search's query) with the embedder the page described. */
async function embedTexts(id, embedder, texts) {
  try {
    const vectors = await __lecternEmbed(embedder, texts);
    self.postMessage({ type: 'vectors', id, vectors }, [vectors.buffer]);
  } catch (error) {
    self.postMessage({ type: 'error', id, error: describe(error) });
  }
}

self.onmessage = (event) => {
  const message = event.data;
  switch (message.type) {
    case 'init':
      init().then(
        () => self.postMessage({ type: 'ready' }),
        (error) => self.postMessage({ type: 'failed', message: String(error) }),
      );
      break;
    case 'ingest':
      run(message.id, message.job);
      break;
    case 'index':
      index(message.id, message.vectors, message.dims, message.minChunks);
      break;
    case 'embedTexts':
      embedTexts(message.id, message.embedder, message.texts);
      break;
    case 'cancel':
      jobs.get(message.id)?.abort();
      break;
    case 'embedded': {
      const waiting = embeds.get(message.requestId);
      embeds.delete(message.requestId);
      if (message.error) waiting?.reject(rebuild(message.error));
      else waiting?.resolve(message.vectors);
      break;
    }
  }
};
