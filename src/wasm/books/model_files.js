// Model files for the books module (lectern_books.js): fetched with
// progress, kept in the Cache API so that the next session reads them with
// no network. Runs in Lectern's worker, or in the page without one.

/** The cache Lectern keeps model files in (one entry per URL). */
export const MODEL_CACHE = 'lectern-models-v1';

/** An `Error` named as Lectern's errors are, with `status` when there is one. */
function failure(name, message, status) {
  const error = new Error(message);
  error.name = name;
  if (status !== undefined) error.status = status;
  return error;
}

/** The cache, or `null` where there is none (an insecure origin, a blocked storage). */
async function openCache() {
  try {
    return globalThis.caches ? await globalThis.caches.open(MODEL_CACHE) : null;
  } catch {
    return null;
  }
}

/** The body of `response` as bytes, calling `onBytes(done, total)` as they come (`total` 0 until known; the last call has `done === total`). */
async function readBody(response, onBytes) {
  const total = Number(response.headers.get('content-length')) || 0;
  onBytes(0, total);
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    onBytes(bytes.length, total || bytes.length);
    return bytes;
  }
  const reader = response.body.getReader();
  let parts = [];
  let done = 0;
  let bytes = total ? new Uint8Array(total) : null;
  for (;;) {
    const { value, done: finished } = await reader.read();
    if (finished) break;
    if (bytes && done + value.length <= bytes.length) bytes.set(value, done);
    else parts.push(value);
    done += value.length;
    onBytes(done, total);
  }
  if (done !== total) onBytes(done, done); // the length was unknown (or wrong): now it is known
  if (bytes && parts.length === 0 && done === bytes.length) return bytes;
  // No length, or a length that lied: put the pieces together.
  const whole = new Uint8Array(done);
  let at = 0;
  if (bytes) {
    const kept = Math.min(bytes.length, done);
    whole.set(bytes.subarray(0, kept));
    at = kept;
  }
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}

/**
 * The bytes at `url`: from the cache when `useCache` and it has them, else
 * fetched (then cached; a full cache only means the next session fetches
 * again). `onBytes(done, total)` reports progress. Rejects with a
 * `ConnectionError` when the fetch fails, an `ApiError` (with `status`) for
 * an HTTP error.
 */
export async function fetchModelFile(url, useCache, onBytes) {
  const cache = useCache ? await openCache() : null;
  const cached = cache ? await cache.match(url).catch(() => undefined) : undefined;
  if (cached) return readBody(cached, onBytes);
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw failure('ConnectionError', `could not fetch the model file ${url}: ${error?.message ?? error}`);
  }
  if (!response.ok) {
    throw failure('ApiError', `the model file ${url} answered HTTP ${response.status}`, response.status);
  }
  const bytes = await readBody(response, onBytes);
  if (cache) {
    const headers = { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) };
    await cache.put(url, new Response(bytes, { headers })).catch(() => {});
  }
  return bytes;
}
