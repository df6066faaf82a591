#!/usr/bin/env node
// Cargo's runner for wasm32 tests (.cargo/config.toml): wasm-bindgen-test-runner, with its
// server's stalled connections freed, and started again when the test page never started.
//
// Why: the runner serves the test page from rouille on tiny_http 0.12, whose thread pool can queue
// a new connection behind threads that each hold a browser's keep-alive connection. `spawn` counts
// a thread that was already woken as still waiting, so a second connection arriving in that window
// is queued rather than given a thread, and waits until a keep-alive connection closes: seconds, or
// never. Measured here: a page's JS snippet served 20 s late (Chrome's net log) while the machine
// was busy; in CI a page that stayed at "Loading scripts..." until the 900 s limit, and in stop 55's
// second CI run three starts in a row that stalled.
//
// The cure (scripts/wasm-test-server-drain.mjs): the runner's server is given an address, and a
// short request that closes its connection goes to it every 250 ms. When every pool thread holds a
// connection, that request finds no waiting thread, so the pool starts one, which answers it and
// then takes the queued connection. The restart stays as the last resort: a test that began is
// never started again, only a page that printed no `running N tests` within the start limit, or a
// runner that ended without it.
//
//   node scripts/wasm-test-runner.mjs <test.wasm> [runner args…]
//
// WASM_BINDGEN_TEST_ADDRESS: the server's address, if set; else a free port on 127.0.0.1.
// LECTERN_WASM_TEST_START_SECONDS (default 180): how long the page may take to start its tests.
// LECTERN_WASM_TEST_ATTEMPTS (default 3): how many times the runner is started.
// LECTERN_WASM_TEST_RUNNER (default wasm-bindgen-test-runner): the runner itself (a test's stand-in).

import { spawn } from 'node:child_process';
import { drainServerQueue, freeLoopbackAddress } from './wasm-test-server-drain.mjs';

const startSeconds = Number(process.env.LECTERN_WASM_TEST_START_SECONDS ?? 180);
const attempts = Number(process.env.LECTERN_WASM_TEST_ATTEMPTS ?? 3);
const runner = process.env.LECTERN_WASM_TEST_RUNNER ?? 'wasm-bindgen-test-runner';

/** The runner's own lines that say the page's test harness began (or that there is no page). */
const STARTED = /running \d+ tests?\b|no tests to run!/;

/** Stops the runner and what it started (chromedriver, the browser): its whole process group. */
function stopGroup(child) {
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // the group is gone already
    }
  };
  signal('SIGTERM');
  setTimeout(() => signal('SIGKILL'), 5000).unref();
}

/** One run of the runner: its exit code, and whether the page's tests began. */
async function runOnce(args) {
  const address = process.env.WASM_BINDGEN_TEST_ADDRESS ?? (await freeLoopbackAddress());
  const drain = drainServerQueue(address);
  try {
    return await new Promise((resolve) => runChild(args, address, resolve));
  } finally {
    drain.stop();
  }
}

/** Starts the runner with its server at `address`; calls `resolve` with how it ended. */
function runChild(args, address, resolve) {
  const env = { ...process.env, WASM_BINDGEN_TEST_ADDRESS: address };
  const child = spawn(runner, args, { stdio: ['inherit', 'pipe', 'pipe'], detached: true, env });
  let seen = '';
  let started = false;
  let stalled = false;
  const limit = setTimeout(() => {
    stalled = true;
    stopGroup(child);
  }, startSeconds * 1000);
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    if (started) return;
    seen = (seen + chunk.toString()).slice(-4096);
    if (STARTED.test(seen)) {
      started = true;
      clearTimeout(limit);
    }
  });
  child.stderr.on('data', (chunk) => process.stderr.write(chunk));
  child.on('error', (error) => {
    clearTimeout(limit);
    process.stderr.write(`wasm-test-runner: cannot start ${runner}: ${error.message}\n`);
    resolve({ code: 127, started: true, stalled: false });
  });
  child.on('close', (code, signal) => {
    clearTimeout(limit);
    resolve({ code: code ?? (signal ? 1 : 0), started, stalled });
  });
}

const args = process.argv.slice(2);
for (let attempt = 1; ; attempt += 1) {
  const { code, started, stalled } = await runOnce(args);
  const exitCode = stalled && code === 0 ? 1 : code;
  if (started || exitCode === 0 || attempt >= attempts) process.exit(exitCode);
  const why = stalled
    ? `the test page did not start its tests within ${startSeconds} s`
    : `the runner ended (exit ${exitCode}) before the test page started its tests`;
  process.stderr.write(
    `wasm-test-runner: ${why} (attempt ${attempt} of ${attempts}); the runner's server is known to ` +
      `stall a connection (tiny_http 0.12's thread pool), so it starts again\n`,
  );
}
