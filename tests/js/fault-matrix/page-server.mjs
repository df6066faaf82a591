// Serves the fault matrix's page on 127.0.0.1: `/` loads `harness.js`, which
// imports the built package from `/pkg/`.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const pkg = resolve(here, '../../../pkg');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const PAGE = `<!doctype html><meta charset="utf-8"><title>fault matrix</title>
<script type="module">window.harness = await import('/harness.js');</script>`;

async function file(res, path) {
  try {
    const body = await readFile(path);
    res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
}

/** Starts the server; resolves with `{ url, close }`. */
export async function startPageServer() {
  const server = http.createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (path === '/harness.js') return file(res, join(here, 'harness.js'));
    const inPkg = normalize(join(pkg, path.replace(/^\/pkg\//, '')));
    if (path.startsWith('/pkg/') && inPkg.startsWith(pkg + sep)) return file(res, inPkg);
    res.writeHead(404).end();
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections?.();
        server.close(ok);
      }),
  };
}
