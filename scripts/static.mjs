// A static file server's one job: a file under a base directory, with its
// content type (wasm as application/wasm) and no caching; shared by the demo
// server, the tests that serve a built app (tests/js/consumer.test.mjs) and the local-model
// tests' isolated server.
import http from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

/** Content types by file extension. */
export const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.epub': 'application/epub+zip',
};

/** Answers with `relative` under `base` (a directory's index.html), 403 outside it, 404 when
 * absent; every answer with `headers` too. The file is streamed (model files are hundreds of MB). */
export async function serveFile(res, base, relative, headers = {}) {
  const path = normalize(join(base, relative));
  if (path !== base && !path.startsWith(base + sep)) {
    res.writeHead(403, headers).end('forbidden');
    return;
  }
  try {
    const info = await stat(path);
    const file = info.isDirectory() ? join(path, 'index.html') : path;
    const size = file === path ? info.size : (await stat(file)).size;
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': size,
      'cache-control': 'no-store',
      ...headers,
    });
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain', ...headers }).end(`not found: ${relative}`);
  }
}

/** Serves `base` on 127.0.0.1 (a free port), each answer with `headers` too; resolves with its `url` and `close`. */
export async function startStatic(base, headers = {}) {
  const server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    serveFile(res, base, path.slice(1), headers);
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: async () => {
      server.closeAllConnections?.();
      await new Promise((ok) => server.close(ok));
    },
  };
}
