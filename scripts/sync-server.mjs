// Lectern's sync server: the standard y-websocket server (`@y/websocket-server`, Yjs 13) with
// one room per user and a token checked before the WebSocket opens (docs/sync.md). A device
// connects to `ws://HOST:PORT/sync/<user>?token=<token>`; the token is HMAC-SHA256 of the user id
// with the server's secret (base64url), so the server keeps no list of tokens; a wrong token or
// another user's room is refused with 401 before any document byte is sent. With `--demo` (or
// `DEMO_TOKENS=1`), `POST /demo/token` with `{"user": "<id>"}` issues one: the reading site's
// demo sign-in; a host's own server would issue tokens after its own sign-in instead.
//
//   node scripts/sync-server.mjs [--port 1234] [--host 127.0.0.1] [--data DIR] [--demo]
//
// `--data DIR` (or `YPERSISTENCE`) keeps each user's document in LevelDB there (y-websocket's
// own persistence), so a restart loses nothing; without it documents live in memory. The secret
// is `SYNC_SECRET`, or a random one printed at start (then tokens die with the process). Prints
// `listening on ws://…` once it accepts connections.
import http from 'node:http';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const port = Number(option('--port', process.env.PORT ?? 1234));
const host = option('--host', process.env.HOST ?? '127.0.0.1');
const data = option('--data', process.env.YPERSISTENCE);
const demo = args.includes('--demo') || process.env.DEMO_TOKENS === '1';
const secret = process.env.SYNC_SECRET ?? randomBytes(32).toString('hex');
// y-websocket reads its persistence directory when its module loads.
if (data) process.env.YPERSISTENCE = data;
const { WebSocketServer } = await import('ws');
const { setupWSConnection, docs } = await import('@y/websocket-server/utils');

/** The token of `user`: HMAC-SHA256 with the secret, base64url. */
const tokenOf = (user) => createHmac('sha256', secret).update(user).digest('base64url');

/** A user id the server accepts: 1 to 64 of letters, digits, `-` and `_`. */
const USER = /^[A-Za-z0-9_-]{1,64}$/;

/** `request`'s user when its token is that user's, else null. */
function authorised(request) {
  const url = new URL(request.url, 'http://localhost');
  const match = /^\/sync\/([^/]+)$/.exec(url.pathname);
  const user = match && decodeURIComponent(match[1]);
  if (!user || !USER.test(user)) return null;
  const given = Buffer.from(url.searchParams.get('token') ?? '');
  const expected = Buffer.from(tokenOf(user));
  return given.length === expected.length && timingSafeEqual(given, expected) ? user : null;
}

const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type' };

/** Answers `status` with `body` (JSON for an object), its length given. */
function send(response, status, body) {
  const json = typeof body !== 'string';
  const text = json ? JSON.stringify(body) : body;
  response
    .writeHead(status, { ...cors, 'content-type': json ? 'application/json' : 'text/plain', 'content-length': Buffer.byteLength(text) })
    .end(text);
}

const wss = new WebSocketServer({ noServer: true, maxPayload: 16 << 20 });
const server = http.createServer(async (request, response) => {
  if (request.method === 'OPTIONS') return response.writeHead(204, cors).end();
  if (demo && request.method === 'POST' && request.url === '/demo/token') {
    let body = '';
    for await (const chunk of request) body += chunk;
    const user = (() => {
      try {
        return JSON.parse(body).user;
      } catch {
        return null;
      }
    })();
    if (typeof user !== 'string' || !USER.test(user)) return send(response, 400, { error: 'user: 1 to 64 of A-Z a-z 0-9 - _' });
    return send(response, 200, { user, token: tokenOf(user) });
  }
  send(response, request.url === '/' ? 200 : 404, 'lectern sync server');
});

server.on('upgrade', (request, socket, head) => {
  const user = authorised(request);
  if (!user) {
    socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return;
  }
  wss.handleUpgrade(request, socket, head, (ws) => setupWSConnection(ws, request, { docName: `user/${user}` }));
});

server.listen(port, host, () => {
  const { port: bound } = server.address();
  if (!process.env.SYNC_SECRET) console.log('no SYNC_SECRET: a random secret, so tokens last as long as this process');
  console.log(`listening on ws://${host}:${bound}/sync/<user>?token=…${demo ? ' (demo tokens at POST /demo/token)' : ''}${data ? `, documents in ${data}` : ''}`);
});

/** Ends cleanly on SIGTERM/SIGINT: y-websocket writes each open document to its store. */
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    for (const doc of docs.values()) doc.conns.forEach((_, conn) => conn.close());
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  });
}
