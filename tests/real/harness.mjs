// What each file of tests/real/ shares: before its tests, llama-server (tests/real/llama-server.mjs)
// with a recording pass-through in front of it (tests/real/recorder.mjs), the demo server (for
// /pkg/) and headless Chromium; after them, all stopped. `real.skip` is the `SKIPPED: …` reason
// when the server or the model cannot be had (each test passes it to `test(…, { skip })`), and
// `openLectern` opens the built package in a fresh page against the server.
import { after, before } from 'node:test';
import { existsSync } from 'node:fs';
import { startDemo } from '../../scripts/serve.mjs';
import { launchChromium } from '../js/browser.mjs';
import { llamaFixtures, startLlamaServer } from './llama-server.mjs';
import { startRecorder } from './recorder.mjs';

/**
 * Starts everything before the calling file's tests; `{ skip, server, recorder, demo, browser }`
 * (`options` go to `startLlamaServer`).
 */
export function realServer(options = {}) {
  const fixtures = existsSync(new URL('../../pkg/lectern.js', import.meta.url))
    ? llamaFixtures()
    : { skip: 'SKIPPED: no pkg/ (bash scripts/build.sh)' };
  const real = { skip: fixtures.skip ?? false, server: null, recorder: null, demo: null, browser: null };
  before(async () => {
    if (real.skip) return;
    real.server = await startLlamaServer(fixtures, options);
    real.recorder = await startRecorder(real.server.url);
    real.demo = await startDemo({ port: 0, minilm: null, localModel: null, isolated: false });
    real.browser = await launchChromium();
  });
  after(async () => {
    await real.browser?.close();
    await real.demo?.close();
    await real.recorder?.close();
    await real.server?.close();
  });
  return real;
}

/**
 * The provider for the server, through the recorder (`direct`: straight to the server): greedy,
 * short answers, no retries, `more` merged over it.
 */
export const providerFor = (real, more = {}, { direct = false } = {}) => ({
  kind: 'openai',
  baseUrl: `${direct ? real.server.url : real.recorder.url}/v1`,
  model: 'smollm2',
  temperature: 0,
  maxTokens: 48,
  maxRetries: 0,
  ...more,
});

/**
 * A fresh page with Lectern open on `provider` (`options` merged into `Lectern.open`'s) and one
 * conversation: `window.lectern`, `window.conversation`, `window.events` (every event; each also
 * goes to `window.onLecternEvent` when a test sets one). Returns `{ page, bodies, answers }`,
 * filled as requests go through the recorder from then on (one page at a time per file): the JSON
 * of each request, and a promise of each answer's whole text (an SSE stream's once it ended).
 */
export async function openLectern(real, provider, options = {}) {
  const page = await real.browser.newPage();
  const bodies = [];
  const answers = [];
  real.recorder.onExchange = (exchange) => {
    bodies.push(exchange.body);
    answers.push(exchange.done);
  };
  await page.goto(`${real.demo.url}blank`); // an origin serving /pkg/, not the site (no service worker)
  await page.evaluate(
    async ({ provider, options }) => {
      const { default: init, Lectern } = await import('/pkg/lectern.js');
      await init();
      window.events = [];
      window.lectern = await Lectern.open({
        dbName: `real-${Math.random()}`,
        provider,
        limits: { turnTimeoutMs: 300000 },
        onEvent: (event) => {
          window.events.push(event);
          window.onLecternEvent?.(event);
        },
        ...options,
      });
      window.conversation = (await window.lectern.createConversation({ title: 'Real server' })).id;
    },
    { provider, options },
  );
  return { page, bodies, answers };
}

/** In the page: `send(text, options)` → `{ reply }`, or `{ error: { name, message, status } }`. */
export const send = (page, text) =>
  page.evaluate(async (text) => {
    try {
      return { reply: await window.lectern.send(window.conversation, text) };
    } catch (e) {
      return { error: { name: e.name, message: e.message, status: e.status } };
    }
  }, text);

/** The server's counters from `/metrics` (Prometheus text), by name without the `llamacpp:` prefix. */
export async function metrics(server) {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const out = {};
  for (const line of text.split('\n')) {
    const m = /^llamacpp:(\w+) ([\d.e+-]+)$/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}
