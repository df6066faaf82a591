// A mock LLM server speaking the real OpenAI chat-completions and Anthropic
// Messages wire formats, streaming (SSE) and not, scriptable per session.
//
//   node tests/mock-server/server.mjs [--port 0] [--chunk-delay-ms 0]
//
// prints `MOCK_URL=http://127.0.0.1:PORT` once listening. Routes:
//   POST [/s/SESSION]/v1/chat/completions   OpenAI-compatible
//   POST [/s/SESSION]/v1/messages           Anthropic Messages
//   POST [/s/SESSION]/v1/embeddings         OpenAI embeddings (deterministic word-hash vectors)
//   POST /__mock/SESSION/script   {turns: [Turn]}  queue turns for a session
//   GET  /__mock/SESSION/requests                  every request the session got; one whose
//                                                  client closed the connection before the
//                                                  answer ended has `closedEarly: true`
//   DELETE /__mock/SESSION                         forget the session
//   GET  /fixtures/PATH, /cache/PATH, /models/PATH files under $LECTERN_FIXTURES_DIR,
//                                                  $LECTERN_BENCH_CACHE_DIR (for benchmarks) and
//                                                  $LECTERN_MINILM_DIR (scripts/fetch-minilm.sh)
// A session is any path-safe name; `/v1/...` without `/s/NAME` is session
// "default". With nothing queued the model echoes the last user message.
//
// Turn: { text?, toolCalls?: [{id?, name, arguments}], usage?: {inputTokens, outputTokens},
//         reasoning?, signature?, redacted?, reasoningField?, delayMs?, chunkDelayMs?, fault? }
// reasoning: thinking text sent before the answer: Anthropic a `thinking` block signed with
//            `signature` (default derived from the text); OpenAI the `reasoningField` of the
//            message or delta ('reasoning_content', the default, or 'reasoning')
// redacted:  Anthropic only: the data of a `redacted_thinking` block after the thinking
// fault: { status, retryAfter?, retryAfterMs?, body? }   answer with an HTTP error
//        { dropAfterChunks: n }                          cut the connection mid-stream
//        { malformedAt: n }                              send a broken chunk as chunk n
//        { errorEventAfterChunks: n, errorType?, errorMessage? }
//                                                        after n chunks, send the provider's error
//                                                        event (Anthropic `event: error`, OpenAI
//                                                        `data: {"error": …}`; type default
//                                                        `overloaded_error`) and end the stream

import http from 'node:http';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { buildOpenAI } from './openai.mjs';
import { buildAnthropic } from './anthropic.mjs';
import { streamErrorEvent } from './common.mjs';
import { embeddingsAnswer } from './embeddings.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function corsHeaders(req) {
  return {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] || '*',
    'access-control-expose-headers': 'retry-after, retry-after-ms, x-request-id',
    'access-control-max-age': '600',
  };
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** URL prefixes served from the folder an environment variable names. */
const STATIC_DIRS = [
  ['/fixtures', 'LECTERN_FIXTURES_DIR'],
  ['/cache', 'LECTERN_BENCH_CACHE_DIR'],
  ['/models', 'LECTERN_MINILM_DIR'],
];

/** Answers with the file at `rest` (a URL path) under `dir`, a 404 if there is none. */
async function serveFile(res, cors, json, dir, rest) {
  const root = path.resolve(dir);
  const file = path.resolve(root, '.' + decodeURIComponent(rest));
  if (!file.startsWith(root + path.sep)) return json(403, { error: { message: 'outside the served folder' } });
  try {
    const bytes = await readFile(file);
    res.writeHead(200, { 'content-type': 'application/octet-stream', ...cors });
    return res.end(bytes);
  } catch {
    return json(404, { error: { message: `no file ${rest}` } });
  }
}

function lastUserText(protocol, body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      const text = m.content.find((b) => b.type === 'text');
      if (text) return text.text;
    }
  }
  return '';
}

/** Starts the server; resolves with `{ url, port, close }`. */
export async function startMockServer({ port = 0, chunkDelayMs = 0 } = {}) {
  const sessions = new Map();
  const session = (name) => {
    if (!sessions.has(name)) sessions.set(name, { queue: [], requests: [] });
    return sessions.get(name);
  };

  const server = http.createServer(async (req, res) => {
    const cors = corsHeaders(req);
    const url = new URL(req.url, 'http://localhost');
    const json = (status, value, extra = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...cors, ...extra });
      res.end(JSON.stringify(value));
    };
    try {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, cors);
        return res.end();
      }
      if (url.pathname === '/health') return json(200, { ok: true });
      // Benchmarks read the shared fixtures (LECTERN_FIXTURES_DIR) and the
      // index snapshots the native bench caches (LECTERN_BENCH_CACHE_DIR) through here.
      for (const [prefix, dir] of STATIC_DIRS) {
        if (req.method === 'GET' && url.pathname.startsWith(prefix + '/') && process.env[dir]) {
          return serveFile(res, cors, json, process.env[dir], url.pathname.slice(prefix.length));
        }
      }

      const control = url.pathname.match(/^\/__mock\/([\w.-]+)(\/script|\/requests)?$/);
      if (control) {
        const [, name, action] = control;
        if (req.method === 'DELETE' && !action) {
          sessions.delete(name);
          return json(200, { ok: true });
        }
        if (req.method === 'POST' && action === '/script') {
          const body = JSON.parse((await readBody(req)) || '{}');
          session(name).queue.push(...(body.turns ?? []));
          return json(200, { queued: session(name).queue.length });
        }
        if (req.method === 'GET' && action === '/requests') return json(200, session(name).requests);
        return json(404, { error: { message: `unknown control route ${req.method} ${url.pathname}` } });
      }

      const route = url.pathname.match(/^(?:\/s\/([\w.-]+))?\/v1\/(chat\/completions|messages|embeddings)$/);
      if (!route || req.method !== 'POST') {
        return json(404, { error: { message: `no route for ${req.method} ${url.pathname}`, type: 'not_found' } });
      }
      const name = route[1] ?? 'default';
      const protocol = route[2] === 'messages' ? 'anthropic' : 'openai';
      const raw = await readBody(req);
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        return json(400, { error: { message: 'request body is not JSON', type: 'invalid_request_error' } });
      }
      const s = session(name);
      const entry = { protocol, path: url.pathname, headers: req.headers, body };
      s.requests.push(entry);
      // The client gave up (an aborted fetch) before the answer ended; not when the mock cut it (dropAfterChunks).
      let cutByMock = false;
      res.on('close', () => {
        if (!res.writableFinished && !cutByMock) entry.closedEarly = true;
      });

      if (route[2] === 'embeddings') {
        const fault = s.queue[0]?.fault?.status ? s.queue.shift().fault : null;
        if (fault) return json(fault.status, { error: { message: `mock fault ${fault.status}` } });
        return json(200, embeddingsAnswer(body));
      }
      const turn = s.queue.shift() ?? { text: `Mock reply to: ${lastUserText(protocol, body)}` };
      if (turn.delayMs) await sleep(turn.delayMs);
      if (entry.closedEarly) return;
      const fault = turn.fault ?? {};
      if (fault.status) {
        const extra = {};
        if (fault.retryAfter !== undefined) extra['retry-after'] = String(fault.retryAfter);
        if (fault.retryAfterMs !== undefined) extra['retry-after-ms'] = String(fault.retryAfterMs);
        return json(fault.status, fault.body ?? { error: { message: `mock fault ${fault.status}`, type: 'mock_error' } }, extra);
      }

      const build = protocol === 'openai' ? buildOpenAI : buildAnthropic;
      const answer = build(turn, body);
      if (!body.stream) return json(200, answer.whole);

      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        ...cors,
      });
      const delay = turn.chunkDelayMs ?? chunkDelayMs;
      let index = 0;
      for (const chunk of answer.chunks) {
        if (fault.dropAfterChunks !== undefined && index >= fault.dropAfterChunks) {
          // Flush what was written, then close the socket without ending the
          // chunked body: the client sees the stream break off.
          cutByMock = true;
          res.socket?.end();
          return;
        }
        if (fault.errorEventAfterChunks !== undefined && index >= fault.errorEventAfterChunks) {
          res.end(streamErrorEvent(protocol, fault.errorType ?? 'overloaded_error', fault.errorMessage));
          return;
        }
        res.write(fault.malformedAt === index ? 'data: {"choices": [ {broken\n\n' : chunk);
        index++;
        if (delay) await sleep(delay);
        if (entry.closedEarly) return;
      }
      res.end();
    } catch (error) {
      if (!res.headersSent) json(500, { error: { message: String(error), type: 'mock_crash' } });
      else res.end();
    }
  });

  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = server.address().port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (flag, fallback) => {
    const i = process.argv.indexOf(flag);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const server = await startMockServer({ port: arg('--port', 0), chunkDelayMs: arg('--chunk-delay-ms', 0) });
  console.log(`MOCK_URL=${server.url}`);
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
