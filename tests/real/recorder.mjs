// A recording pass-through in front of llama-server for tests/real/: every request is piped to the
// server as it comes and every answer back as it goes (an SSE stream stays a stream, an abort
// still closes the server's connection), while a copy of both is kept for the tests to read —
// what the browser sent and what the server answered, which the browser's tools cannot show for
// a streamed fetch.
import http from 'node:http';

/**
 * Starts the pass-through to `target` (`http://127.0.0.1:port`) on a free port; resolves with
 * `{ url, exchanges, onExchange, close() }`: `exchanges`, the POSTs in arrival order, each
 * `{ method, path, body (parsed JSON, or null), status, text (the answer so far), done (a promise
 * of the whole answer) }`, each also given to `onExchange` when one is set.
 */
export function startRecorder(target) {
  const exchanges = [];
  const recorder = { url: '', exchanges, onExchange: null, close: null };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const exchange = { method: req.method, path: req.url, body: parse(raw), status: 0, text: '' };
      let finish;
      exchange.done = new Promise((resolve) => (finish = resolve));
      if (req.method === 'POST') {
        exchanges.push(exchange);
        recorder.onExchange?.(exchange);
      }
      const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        exchange.status = answer.statusCode;
        res.writeHead(answer.statusCode, answer.headers);
        answer.on('data', (c) => {
          exchange.text += c;
          res.write(c);
        });
        answer.on('end', () => {
          res.end();
          finish(exchange.text);
        });
        answer.on('error', () => finish(exchange.text));
      });
      upstream.on('error', (e) => {
        finish(exchange.text);
        if (!res.headersSent) res.writeHead(502).end(String(e));
        else res.destroy();
      });
      // The browser gave up (an abort): close the server's connection too, as a direct fetch would.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(raw);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      recorder.url = `http://127.0.0.1:${server.address().port}`;
      recorder.close = () =>
        new Promise((r) => {
          server.close(r);
          server.closeAllConnections();
        });
      resolve(recorder);
    });
  });
}

function parse(raw) {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
}
