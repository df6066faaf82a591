// Serves the demo: www/ at /, the built package at /pkg/, /config.json
// naming the mock model server, which it starts too, and /models/ the
// all-MiniLM-L6-v2 files when LECTERN_MINILM_DIR names them
// (scripts/fetch-minilm.sh).
//
//   node scripts/serve.mjs [--port 8080]     (PORT in the environment works too)
import http from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startMockServer } from '../tests/mock-server/server.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
};

async function serveFile(res, base, relative) {
  const path = normalize(join(base, relative));
  if (path !== base && !path.startsWith(base + sep)) {
    res.writeHead(403).end('forbidden');
    return;
  }
  try {
    const info = await stat(path);
    const file = info.isDirectory() ? join(path, 'index.html') : path;
    const body = await readFile(file);
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': body.length,
      'cache-control': 'no-store',
    });
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${relative}`);
  }
}

/** Starts the mock model server and the static server; resolves with their URLs and `close`. */
export async function startDemo({ port = 0, chunkDelayMs = 40 } = {}) {
  const mock = await startMockServer({ port: 0, chunkDelayMs });
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const path = decodeURIComponent(url.pathname);
    if (path === '/config.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ mockBaseUrl: `${mock.url}/v1` }));
    } else if (path.startsWith('/models/') && process.env.LECTERN_MINILM_DIR) {
      await serveFile(res, resolve(process.env.LECTERN_MINILM_DIR), path.slice('/models/'.length));
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
    close: async () => {
      server.closeAllConnections?.();
      await new Promise((ok) => server.close(ok));
      await mock.close();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--port');
  const port = Number(i >= 0 ? process.argv[i + 1] : process.env.PORT ?? 8080);
  const demo = await startDemo({ port });
  console.log(`Mock model server: ${demo.mockUrl}/v1 (OpenAI-compatible, any model name, no key needed)`);
  console.log(`Lectern demo:      ${demo.url}`);
  console.log('Press Ctrl+C to stop.');
  const stop = async () => {
    await demo.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
