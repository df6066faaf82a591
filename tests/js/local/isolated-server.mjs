// A static server for the local-model tests and bench: one origin, cross-origin isolated
// (COOP/COEP headers, so wllama can use threads), serving each mount's directory.
//
//   const server = await startIsolatedServer({ '/pkg/': 'pkg', '/wllama/': '…/esm', '/': 'page-dir' });
//   server.url; await server.close();
import http from 'node:http';
import { resolve } from 'node:path';
import { serveFile } from '../../../scripts/static.mjs';

export const ISOLATION_HEADERS = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * Starts the server on 127.0.0.1 and a free port; `mounts` maps URL prefixes (ending in `/`)
 * to directories, the longest prefix first. Resolves with `{ url, requests, close }`;
 * `requests` counts the requests served. `isolated: false` leaves out the COOP/COEP headers (a
 * page with no shared memory).
 */
export async function startIsolatedServer(mounts, { isolated = true } = {}) {
  const headers = isolated ? ISOLATION_HEADERS : {};
  const entries = Object.entries(mounts)
    .map(([prefix, dir]) => [prefix, resolve(dir)])
    .sort((a, b) => b[0].length - a[0].length);
  const handle = { url: '', requests: 0, close: null };
  const server = http.createServer(async (req, res) => {
    handle.requests += 1;
    const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    const mount = entries.find(([prefix]) => path.startsWith(prefix));
    if (!mount) {
      res.writeHead(404, headers).end('no such mount');
      return;
    }
    await serveFile(res, mount[1], path.slice(mount[0].length), headers);
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  handle.url = `http://127.0.0.1:${server.address().port}/`;
  handle.close = async () => {
    server.closeAllConnections?.();
    await new Promise((ok) => server.close(ok));
  };
  return handle;
}
