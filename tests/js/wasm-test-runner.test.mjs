// scripts/wasm-test-runner.mjs, cargo's runner for the wasm tests: a connection that
// wasm-bindgen-test-runner's server left queued is freed, and a test page that never starts is
// started again; a test that began is never run twice, and its exit code is the runner's. The real
// runner is replaced by a stand-in that plays a stalled page, a page that starts and fails, one
// that passes, or a server whose thread pool queues a connection as tiny_http 0.12's does.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const wrapper = new URL('../../scripts/wasm-test-runner.mjs', import.meta.url).pathname;
const dirs = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A stand-in runner playing `script[n]` on its n-th start ('stall', 'fail', 'pass', 'quit'). */
function standIn(script) {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-runner-'));
  dirs.push(dir);
  const count = join(dir, 'starts');
  const runner = join(dir, 'runner.mjs');
  writeFileSync(
    runner,
    `#!/usr/bin/env node
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
const n = existsSync(${JSON.stringify(count)}) ? Number(readFileSync(${JSON.stringify(count)}, 'utf8')) : 0;
writeFileSync(${JSON.stringify(count)}, String(n + 1));
const play = ${JSON.stringify(script)}[n];
process.stdout.write('Running headless tests in Chrome\\nLoading scripts...');
if (play === 'stall') setInterval(() => {}, 1000);
else if (play === 'quit') { process.stdout.write('Failed to detect test as having been run.\\n'); process.exit(1); }
else {
  process.stdout.write('running 2 tests\\ntest a ... ok\\n');
  if (play === 'fail') { process.stdout.write('test b ... FAIL\\ntest result: FAILED.\\n'); process.exit(101); }
  process.stdout.write('test b ... ok\\ntest result: ok. 2 passed\\n');
}
`,
    { mode: 0o755 },
  );
  const starts = () => (existsSync(count) ? Number(readFileSync(count, 'utf8')) : 0);
  return { runner, starts };
}

/**
 * A stand-in runner whose server treats connections as tiny_http 0.12's pool does: a connection
 * that finds no waiting thread gets a new thread, which serves it and then the queued ones; the
 * page's second connection arrives in the miscounted window and is only queued. Its first holds
 * its thread (keep-alive). The page starts its tests once that second request is answered.
 */
function poolStandIn() {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-runner-'));
  dirs.push(dir);
  const runner = join(dir, 'runner.mjs');
  writeFileSync(
    runner,
    `#!/usr/bin/env node
import { connect, createServer } from 'node:net';
process.stdout.write('Running headless tests in Chrome\\nLoading scripts...');
const address = process.env.WASM_BINDGEN_TEST_ADDRESS;
if (!address) setInterval(() => {}, 1000);
else {
  const [host, port] = address.split(':');
  const queue = [];
  // Answers each request on the socket; resolves when the socket closes.
  const serve = (socket) => new Promise((resolve) => {
    socket.on('close', resolve);
    socket.on('error', () => {});
    const answer = (head) => {
      socket.write('HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\n\\r\\nok');
      if (/connection: close/i.test(head)) socket.end();
    };
    if (socket.head) answer(socket.head);
    socket.on('data', (data) => answer(String(data)));
  });
  const thread = async (first) => {
    await serve(first);
    while (queue.length > 0) await serve(queue.shift());
  };
  const server = createServer((socket) => {
    socket.once('data', (data) => {
      socket.head = String(data);
      socket.pause();
      if (/^GET \\/run\\.js /.test(socket.head)) queue.push(socket);
      else thread(socket);
      socket.resume();
    });
  });
  server.listen(Number(port), host, () => {
    const page = (path, onAnswer) => {
      const socket = connect(Number(port), host, () => socket.write('GET ' + path + ' HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'));
      socket.once('data', onAnswer);
    };
    page('/', () => page('/run.js', () => {
      process.stdout.write('running 1 tests\\ntest a ... ok\\ntest result: ok. 1 passed\\n');
      process.exit(0);
    }));
  });
}
`,
    { mode: 0o755 },
  );
  return { runner };
}

function run(runner, env = {}) {
  return spawnSync(process.execPath, [wrapper, 'x.wasm'], {
    encoding: 'utf8',
    env: { ...process.env, LECTERN_WASM_TEST_RUNNER: runner, LECTERN_WASM_TEST_START_SECONDS: '2', ...env },
    timeout: 60_000,
  });
}

test('a page that never starts its tests is stopped and started again, then passes', () => {
  const { runner, starts } = standIn(['stall', 'pass']);
  const result = run(runner);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(starts(), 2);
  assert.match(result.stderr, /did not start its tests within 2 s \(attempt 1 of 3\)/);
  assert.match(result.stdout, /test result: ok/);
});

test('a runner that ends before its page started is started again', () => {
  const { runner, starts } = standIn(['quit', 'pass']);
  const result = run(runner);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(starts(), 2);
  assert.match(result.stderr, /ended \(exit 1\) before the test page started/);
});

test('a test that began and failed is never run again, and its exit code is kept', () => {
  const { runner, starts } = standIn(['fail', 'pass']);
  const result = run(runner);
  assert.equal(result.status, 101);
  assert.equal(starts(), 1);
  assert.doesNotMatch(result.stderr, /starts again/);
});

test('a page that never starts gives up after the attempts, failing', () => {
  const { runner, starts } = standIn(['stall', 'stall', 'stall']);
  const result = run(runner, { LECTERN_WASM_TEST_ATTEMPTS: '2' });
  assert.notEqual(result.status, 0);
  assert.equal(starts(), 2);
});

test('a connection the runner\'s server left queued behind keep-alive ones is freed', () => {
  const { runner } = poolStandIn();
  const result = run(runner, { LECTERN_WASM_TEST_ATTEMPTS: '1', LECTERN_WASM_TEST_START_SECONDS: '20' });
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /running 1 tests/);
});
