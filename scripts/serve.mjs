// Serves the demo: www/ at /, the built package at /pkg/, /config.json
// naming the mock model server, which it starts too, /models/ the
// all-MiniLM-L6-v2 files when LECTERN_MINILM_DIR names them
// (scripts/fetch-minilm.sh), and an in-browser model when LECTERN_SMOLLM2
// names a GGUF (scripts/fetch-smollm2.sh): the model at /local-model/, named in /config.json as
// `localModel` (the site runs it with Lectern's own decoder, lectern/local); wllama's browser files
// at /wllama/ when installed, for pages that try lectern/wllama (the site does not precache them). For the reading site's
// service worker: /precache.json (the app shell's URLs and their hash) and /sw.js with that hash
// written above it (a changed shell is a changed worker); /samples/thursday.txt is the Thursday
// fixture from ../shared when present (else www/samples/ has a short public-domain text).
// /v1/… is the mock model server's default session, forwarded, so a page can name its model
// endpoint by path (`baseUrl: '/v1'`, as docs/widget.md's example does). /blank.html is an
// empty HTML page of the origin, for trying the package by hand and for tests. Every answer is
// cross-origin isolated (COOP `same-origin`, COEP `require-corp`: the site's in-browser model then
// runs on two threads, lectern/local's threaded build); `isolated: false` leaves the headers out.
// With a sync server (`syncUrl`, its ws:// origin; the command line starts scripts/sync-server.mjs
// on the next port, its documents in ~/.cache/lectern/sync-demo, when its packages are installed),
// /config.json names it as `sync`, and the site offers "Sync as …" (docs/sync.md).
//
//   node scripts/serve.mjs [--port 8080]     (PORT in the environment works too)
import http from 'node:http';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startMockServer } from '../tests/mock-server/server.mjs';
import { serveFile } from './static.mjs';
import { shellHash, shellUrls } from './precache.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const thursday = resolve(root, '../shared/fixtures/books/chesterton-thursday.txt');

/** wllama's browser files (npm's @wllama/wllama), for pages that use lectern/wllama. */
const wllamaDir = join(root, 'node_modules/@wllama/wllama/esm');

/** The GGUF at `model`, if it is there. */
function localModelFiles(model) {
  if (!model || !existsSync(model)) return null;
  return { dir: dirname(model), name: basename(model) };
}

/** Sends `req` on to `target` and its answer back, streamed both ways. */
function forward(req, res, target) {
  const out = http.request(target, { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', (e) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`the mock model server did not answer: ${e.message}`);
  });
  res.on('close', () => out.destroy()); // the page gave up: so does the forwarded request
  req.pipe(out);
}

/** The directory `dir` if it holds all-MiniLM-L6-v2's files. */
function minilmFiles(dir) {
  return dir && ['model.safetensors', 'vocab.txt'].every((f) => existsSync(join(dir, f))) ? resolve(dir) : null;
}

/**
 * Starts the mock model server and the static server; resolves with their URLs and `close`.
 * `localModel`: a GGUF to offer as the in-browser model (default: LECTERN_SMOLLM2); `minilm`: the
 * directory of all-MiniLM-L6-v2's files, served at /models/ and named in /config.json as the
 * site's embedder (default: LECTERN_MINILM_DIR); `isolated` (default true): the COOP/COEP headers.
 */
export async function startDemo({
  port = 0,
  chunkDelayMs = 40,
  localModel = process.env.LECTERN_SMOLLM2,
  minilm = process.env.LECTERN_MINILM_DIR,
  isolated = true,
  syncUrl = process.env.LECTERN_SYNC_URL,
} = {}) {
  const mock = await startMockServer({ port: 0, chunkDelayMs });
  const local = localModelFiles(localModel);
  const models = minilmFiles(minilm);
  const config = {
    mockBaseUrl: `${mock.url}/v1`,
    ...(local ? { localModel: { url: `/local-model/${local.name}`, name: local.name.replace(/\.gguf$/i, '') } } : {}),
    ...(models ? { embedder: { kind: 'minilm', modelUrl: '/models/model.safetensors', vocabUrl: '/models/vocab.txt' } } : {}),
    ...(syncUrl ? { sync: { url: syncUrl } } : {}),
  };
  const served = new Map(); // path → requests, for tests in any engine (no browser network hooks needed)
  let refused = null; // a path prefix answered 503, as if offline
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const path = decodeURIComponent(url.pathname);
    served.set(path, (served.get(path) ?? 0) + 1);
    if (isolated) {
      res.setHeader('cross-origin-opener-policy', 'same-origin');
      res.setHeader('cross-origin-embedder-policy', 'require-corp');
    }
    if (refused && path.startsWith(refused)) {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('refused: the test cut this path off');
    } else if (path === '/config.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(config));
    } else if (path === '/precache.json' || path === '/sw.js') {
      const urls = await shellUrls(root, { thursday: existsSync(thursday) });
      const hash = await shellHash(root, urls, { thursday });
      if (path === '/precache.json') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify({ hash, urls }));
      } else {
        const body = `self.SHELL_HASH = '${hash}';\n${await readFile(join(root, 'www/sw.js'), 'utf8')}`;
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' });
        res.end(body);
      }
    } else if (path === '/blank.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html lang="en"><meta charset="utf-8"><title>Lectern</title><body></body></html>');
    } else if (path.startsWith('/v1/')) {
      forward(req, res, `${mock.url}${req.url}`);
    } else if (path === '/samples/thursday.txt' && existsSync(thursday)) {
      await serveFile(res, dirname(thursday), basename(thursday));
    } else if (path.startsWith('/wllama/') && existsSync(wllamaDir)) {
      await serveFile(res, wllamaDir, path.slice('/wllama/'.length));
    } else if (local && path === `/local-model/${local.name}`) {
      await serveFile(res, local.dir, local.name);
    } else if (path.startsWith('/models/') && models) {
      await serveFile(res, models, path.slice('/models/'.length));
    } else if (path.startsWith('/pkg/')) {
      await serveFile(res, join(root, 'pkg'), path.slice('/pkg/'.length));
    } else {
      await serveFile(res, join(root, 'www'), path.slice(1));
    }
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', ok);
  });
  const url = `http://127.0.0.1:${server.address().port}/`;
  return {
    url,
    mockUrl: mock.url,
    localModel: local?.name ?? null,
    embedder: models ? 'all-MiniLM-L6-v2' : null,
    syncUrl: syncUrl ?? null,
    /** How many requests for `path` the server got. */
    requestsFor: (path) => served.get(path) ?? 0,
    /** Answers every path under `prefix` with 503 from now on (`null`: none). */
    refuse: (prefix) => {
      refused = prefix;
    },
    close: async () => {
      server.closeAllConnections?.();
      await new Promise((ok) => server.close(ok));
      await mock.close();
    },
  };
}

/** scripts/sync-server.mjs with demo tokens on `port`, once it listens; null without its packages. */
function startSyncServer(port) {
  if (!existsSync(join(root, 'node_modules/@y/websocket-server'))) return null;
  const data = join(homedir(), '.cache/lectern/sync-demo');
  const args = [join(root, 'scripts/sync-server.mjs'), '--port', String(port), '--demo', '--data', data];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => {
    child.stdout.on('data', (chunk) => {
      if (String(chunk).includes('listening on')) resolve({ url: `ws://127.0.0.1:${port}`, data, child });
    });
    child.once('exit', () => resolve(null));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--port');
  const port = Number(i >= 0 ? process.argv[i + 1] : process.env.PORT ?? 8080);
  const sync = await startSyncServer(port + 1);
  const demo = await startDemo({ port, syncUrl: sync?.url });
  console.log(`Mock model server: ${demo.mockUrl}/v1 (OpenAI-compatible, any model name, no key needed)`);
  console.log(`Reading site:      ${demo.url}  (the chat widget alone: ${demo.url}chat.html)`);
  console.log(demo.localModel ? `In-browser model:  ${demo.localModel} (Lectern's own decoder)` : 'In-browser model:  none (scripts/fetch-smollm2.sh found none)');
  console.log(demo.embedder ? `Book search:       by words at once, by meaning too (${demo.embedder}, in the worker)` : 'Book search:       by words (scripts/fetch-minilm.sh found no MiniLM files)');
  console.log(sync ? `Sync server:       ${sync.url} (demo sign-in; documents in ${sync.data})` : 'Sync server:       none (npm ci installs @y/websocket-server)');
  console.log('Press Ctrl+C to stop.');
  const stop = async () => {
    sync?.child.kill();
    await demo.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
