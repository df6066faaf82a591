// One WebDriver-classic session of WebKitGTK: a WebKitWebDriver process (it
// allows one session each) under its own Xvfb display, driving the MiniBrowser
// it starts. Commands go one at a time, as the protocol processes them.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The longest a WebDriver command may take (a page load included) before it fails the test. */
const COMMAND_TIMEOUT_MS = 120_000;

/** An error a WebDriver command answered with (`error` is the protocol's code, e.g. `no such window`). */
export class WebDriverError extends Error {
  constructor(command, value) {
    super(`${command}: ${value?.error ?? 'failed'}: ${value?.message ?? ''}`);
    this.name = 'WebDriverError';
    this.code = value?.error;
  }
}

/** A running WebKitWebDriver with one MiniBrowser session. */
export class WebKitSession {
  static async start() {
    const port = await freePort();
    const driver = process.env.WEBKIT_WEBDRIVER ?? 'WebKitWebDriver';
    const child = spawn('xvfb-run', ['-a', driver, `--port=${port}`], { detached: true, stdio: 'ignore' });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/status`)).ok) break;
      } catch {
        if (i > 200) throw new Error(`WebKitWebDriver did not start on port ${port}`);
      }
      await sleep(50);
    }
    const session = new WebKitSession(child, base);
    const { sessionId } = await session.raw('POST', '/session', { capabilities: {} });
    session.path = `/session/${sessionId}`;
    return session;
  }

  constructor(child, base) {
    this.child = child;
    this.base = base;
    this.queue = Promise.resolve();
  }

  /** Sends one command now (outside the queue); one the driver has not answered in 2 minutes fails. */
  async raw(method, path, body) {
    const res = await fetch(this.base + path, {
      method,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(COMMAND_TIMEOUT_MS),
    });
    const { value } = await res.json();
    if (!res.ok) throw new WebDriverError(`${method} ${path.replace(/^\/session\/[^/]+/, '')}`, value);
    return value;
  }

  /**
   * Runs `work(command)` with the session to itself (after the work queued
   * before it): `command(method, path, body)` sends one session command.
   */
  exclusive(work) {
    const command = (method, path, body) => this.raw(method, `${this.path}${path}`, body);
    const run = this.queue.then(() => work(command));
    this.queue = run.catch(() => {});
    return run;
  }

  /** Ends the session and stops the driver, its browser and its display. */
  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    await this.raw('DELETE', this.path).catch(() => {});
    try {
      process.kill(-this.child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}
