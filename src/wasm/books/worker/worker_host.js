// The books module's side of Lectern's ingestion worker (lectern_worker.js,
// shipped at the package root beside lectern.js): starts it on the first
// book, hands it jobs (a book to cut, texts to embed, vectors to index); when
// it cannot start (or with `worker: false`), every call resolves `null` and
// the books module (which has the same code) does the work itself, paced.
// wasm-bindgen copies this file to pkg/snippets/lectern-<hash>/src/wasm/books/worker/:
// the URL below climbs back to pkg/ (a literal, for bundlers).

const START_TIMEOUT_MS = 20000;

/** The error the worker described, rebuilt as the same `Error`. */
function rebuild({ name, message, fields }) {
  const error = new Error(message);
  error.name = name;
  return Object.assign(error, fields);
}

// The options are written out in each call: Vite refuses a worker whose options are not a literal.
function startWorker(url) {
  if (url) return new Worker(url, { type: 'module', name: 'lectern-ingest' });
  return new Worker(new URL('../../../../../../lectern_worker.js', import.meta.url), { type: 'module', name: 'lectern-ingest' });
}

export class IngestWorker {
  /** `url`: where the worker script is (default: beside lectern.js); `useWorker`: try the worker. */
  constructor(url, useWorker) {
    this.url = url ?? undefined;
    this.useWorker = useWorker;
    this.worker = null;
    this.starting = null;
    this.unavailable = false;
    this.jobs = new Map();
    this.nextId = 1;
  }

  /** Resolves `true` once the worker is ready, `false` if it cannot start (it is not tried again). */
  start() {
    if (!this.useWorker) this.unavailable = true;
    if (this.unavailable) return Promise.resolve(false);
    this.starting ??= new Promise((resolve) => {
      let worker;
      try {
        worker = startWorker(this.url);
      } catch {
        this.unavailable = true;
        resolve(false);
        return;
      }
      let ready = false;
      const fail = () => {
        clearTimeout(timer);
        worker.terminate();
        this.unavailable = true;
        this.starting = null;
        resolve(false);
      };
      const timer = setTimeout(fail, START_TIMEOUT_MS);
      worker.onerror = (event) => {
        event.preventDefault?.();
        if (ready) this.lost(event.message ?? 'error');
        else fail();
      };
      worker.onmessage = (event) => {
        const message = event.data;
        if (message.type === 'ready') {
          ready = true;
          clearTimeout(timer);
          this.worker = worker;
          resolve(true);
        } else if (message.type === 'failed') {
          fail();
        } else {
          this.receive(message);
        }
      };
      worker.postMessage({ type: 'init' });
    });
    return this.starting;
  }

  /**
   * Runs one job in the worker: resolves with the prepared book
   * (`{ book: Uint8Array }`: pages, chunks, lexical index), rejects with the
   * job's error; without a worker, resolves `null`.
   */
  async run(job, transfer, onProgress, signal) {
    if (!(await this.start())) return null;
    if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => this.cancel(id);
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        this.jobs.delete(id);
      };
      this.jobs.set(id, { resolve, reject, onProgress, done, indexed: null });
      this.worker.postMessage({ type: 'ingest', id, job }, transfer);
    });
  }

  /**
   * Builds the index of a stored book's vectors (a `Float32Array`, transferred)
   * in the worker: resolves with its snapshot, or `null` if there is none (too
   * few vectors, the worker cannot start, failed or was stopped).
   */
  async index(vectors, dims, minChunks) {
    if (!(await this.start())) return null;
    const id = this.nextId++;
    return new Promise((resolve) => {
      const done = () => this.jobs.delete(id);
      this.jobs.set(id, { resolve, reject: resolve, done, indexed: resolve });
      this.worker.postMessage({ type: 'index', id, vectors, dims, minChunks }, [vectors.buffer]);
    });
  }

  /**
   * Embeds `texts` with the embedder `embedder` (its options as JSON text) in
   * the worker, which keeps the model loaded (its bytes to `onBytes(done,
   * total)` while it loads): resolves with their vectors as one
   * `Float32Array`, a row per text. Without a worker, resolves `null`.
   */
  async embedTexts(embedder, texts, onBytes) {
    if (!(await this.start())) return null;
    const id = this.nextId++;
    const onProgress = ({ done, total }) => onBytes?.(done, total);
    return new Promise((resolve, reject) => {
      const done = () => this.jobs.delete(id);
      this.jobs.set(id, { resolve, reject, onProgress, done, indexed: null });
      this.worker.postMessage({ type: 'embedTexts', id, embedder, texts });
    });
  }

  /** Stops a job: the worker itself when nothing else runs in it (it restarts on the next book). */
  cancel(id) {
    const job = this.jobs.get(id);
    if (!job) return;
    job.done();
    if (job.indexed) job.indexed(null);
    else job.reject(new DOMException('aborted', 'AbortError'));
    if (this.jobs.size === 0) this.reset();
    else this.worker?.postMessage({ type: 'cancel', id });
  }

  receive(message) {
    const job = this.jobs.get(message.id);
    if (!job) return;
    switch (message.type) {
      case 'progress':
        job.onProgress(message.progress);
        break;
      case 'prepared':
        job.done();
        job.resolve(message.result);
        break;
      case 'vectors':
        job.done();
        job.resolve(message.vectors);
        break;
      case 'done':
        job.done();
        job.indexed?.(message.snapshot ?? null);
        break;
      case 'error':
        job.done();
        if (job.indexed) job.indexed(null);
        else job.reject(rebuild(message.error));
        break;
    }
  }

  /** The worker died after it started: its jobs fail, the next book starts a new one. */
  lost(reason) {
    const error = new Error(`the ingestion worker stopped: ${reason}`);
    error.name = 'InternalError';
    for (const job of [...this.jobs.values()]) {
      job.done();
      if (job.indexed) job.indexed(null);
      else job.reject(error);
    }
    this.reset();
  }

  /** Stops the worker. */
  terminate() {
    for (const id of [...this.jobs.keys()]) this.cancel(id);
    this.reset();
  }

  reset() {
    this.worker?.terminate();
    this.worker = null;
    this.starting = null;
  }
}
