// The reading site's service worker: the app shell (HTML, JS, CSS, Lectern's JS and wasm, the
// widget, icons, the sample book) precached from /precache.json into `lectern-site-<hash>`, served
// cache-first; /config.json network-first with the cached copy offline. Model files (MiniLM's,
// the GGUF) are never intercepted: Lectern's `lectern-models-v1` cache keeps them. A new version waits until the page says `skipWaiting` (never mid-turn).
const PREFIX = 'lectern-site-';
const NETWORK_FIRST = new Set(['/config.json']);
/** Never intercepted: model files, which Lectern's own cache keeps. */
const PASS_THROUGH = [/^\/models\//, /^\/local-model\//, /\.gguf$/i];
/** The shell's version: scripts/serve.mjs writes `self.SHELL_HASH = '…'` above this file, so a
 * changed shell is a changed sw.js, which the browser installs as an update. */
const NAME = PREFIX + (self.SHELL_HASH ?? 'dev');

let shell = null; // { cache, urls } once known

async function manifest() {
  const response = await fetch('/precache.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`precache.json: HTTP ${response.status}`);
  return response.json();
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const { urls } = await manifest();
      const cache = await caches.open(NAME);
      await cache.addAll([...urls, ...NETWORK_FIRST]);
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== NAME) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('message', (event) => {
  if (event.data === 'skipWaiting') self.skipWaiting();
});

/** This worker's cache and the paths in it. */
async function shellCache() {
  if (!shell) {
    if (!(await caches.has(NAME))) return null;
    const cache = await caches.open(NAME);
    const urls = new Set((await cache.keys()).map((r) => new URL(r.url).pathname));
    shell = { cache, urls };
  }
  return shell;
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (PASS_THROUGH.some((pattern) => pattern.test(url.pathname))) return;
  if (NETWORK_FIRST.has(url.pathname)) {
    event.respondWith(networkFirst(event.request));
    return;
  }
  event.respondWith(cacheFirst(event.request, url.pathname));
});

async function cacheFirst(request, path) {
  const found = await shellCache();
  if (found?.urls.has(path)) {
    const cached = await found.cache.match(path);
    if (cached) return cached;
  }
  return fetch(request); // not part of the shell: from the network
}

async function networkFirst(request) {
  const found = await shellCache();
  try {
    const response = await fetch(request);
    if (response.ok) await found?.cache.put(request, response.clone());
    return response;
  } catch (error) {
    const cached = await found?.cache.match(request);
    if (cached) return cached;
    throw error;
  }
}
