// Lectern's ingestion worker: the books module in the page starts it (a module
// Worker) and hands it books to cut, texts to embed and vectors to index, so
// that the page never freezes.
// Shipped beside lectern.js; it runs the books module's ingestion entries,
// lectern_books.js and its lectern_books_bg.wasm (which the page's module leaves out).
//
// Messages in:  { type: 'init' } · { type: 'ingest', id, job } (job: { job: an IngestJob's JSON text, epub? }: pages, chunks, lexical index) ·
//               { type: 'index', id, vectors, dims, minChunks } (a stored book's index) ·
//               { type: 'embedTexts', id, embedder, texts } (queries and chunks, the model kept loaded here) ·
//               { type: 'cancel', id }
// Messages out: { type: 'ready' } · { type: 'failed', message } ·
//               { type: 'progress', id, progress } (an ingest's phase; an embed's model bytes { done, total }) ·
//               { type: 'prepared', id, result } (the book's bytes, transferred) ·
//               { type: 'done', id, snapshot? } (the index, transferred) ·
//               { type: 'vectors', id, vectors } (a Float32Array, transferred) · { type: 'error', id, error }
import init, { __lecternBuildIndex, __lecternEmbed, __lecternIngest } from './lectern_books.js';

const jobs = new Map(); // id -> AbortController

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

async function run(id, job) {
  const controller = new AbortController();
  jobs.set(id, controller);
  const progress = (p) => self.postMessage({ type: 'progress', id, progress: p });
  try {
    const result = await __lecternIngest(job, progress, controller.signal);
    self.postMessage({ type: 'prepared', id, result }, [result.book.buffer]);
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

/** Embeds `texts` (a query, a book's chunks) with the embedder the page described. */
async function embedTexts(id, embedder, texts) {
  const bytes = (done, total) => self.postMessage({ type: 'progress', id, progress: { done, total } });
  try {
    const vectors = await __lecternEmbed(embedder, texts, bytes);
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
  }
};
