// Frees the connections that wasm-bindgen-test-runner's server (rouille on tiny_http 0.12) leaves
// queued: see scripts/wasm-test-runner.mjs for the stall itself.
//
// tiny_http starts a new pool thread for a connection only when it counts no waiting thread. A
// connection queued in the miscounted window waits for a thread to finish its task, and each task
// is a browser's keep-alive connection. A request sent with `Connection: close` is a task that
// ends: when it finds every thread busy, the pool starts a thread for it, and that thread, once it
// answered, takes the queued connection from the pool's queue. One such request every 250 ms, for
// as long as the runner runs, bounds a stall at about that.

import { request } from 'node:http';
import { createServer } from 'node:net';

/** How often a closing request goes to the runner's server. */
const INTERVAL_MS = 250;
/** At most this many such requests wait at once (a stalled one is freed by the next). */
const MAX_PENDING = 4;
/** A request that waited longer than this met a stalled server (it is counted and reported). */
const STALL_MS = 1000;

/** A free `127.0.0.1:<port>` for the runner's server (WASM_BINDGEN_TEST_ADDRESS). */
export function freeLoopbackAddress() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(`127.0.0.1:${port}`));
    });
  });
}

/**
 * Sends a request that closes its connection to the server at `address` (`host:port`) every
 * 250 ms until `stop()`, which reports on stderr how many met a stalled server. A server not yet
 * listening, or gone, is no error: the next request tries again.
 */
export function drainServerQueue(address) {
  const [host, port] = splitAddress(address);
  let pending = 0;
  let stalls = 0;
  let longestMs = 0;
  const send = () => {
    if (pending >= MAX_PENDING) return;
    pending += 1;
    const sent = Date.now();
    let ended = false;
    // Once per request: an aborted answer can end both the response and the request.
    const done = () => {
      if (ended) return;
      ended = true;
      pending -= 1;
      const waited = Date.now() - sent;
      if (waited > STALL_MS) {
        stalls += 1;
        longestMs = Math.max(longestMs, waited);
      }
    };
    const req = request({ host, port, path: '/', agent: false, headers: { Connection: 'close' } });
    req.on('response', (res) => res.on('end', done).on('error', done).resume());
    req.on('error', done);
    req.end();
  };
  const timer = setInterval(send, INTERVAL_MS);
  return {
    stop() {
      clearInterval(timer);
      if (stalls > 0) {
        process.stderr.write(
          `wasm-test-runner: ${stalls} request(s) to the runner's server met a stalled connection ` +
            `queue (the longest waited ${(longestMs / 1000).toFixed(1)} s); each was freed by the next\n`,
        );
      }
    },
  };
}

/** `host:port` (an IPv6 host in brackets) as `[host, port]`. */
function splitAddress(address) {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return [host, Number(address.slice(colon + 1))];
}
