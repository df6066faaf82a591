// A whole reading session with the network off, in headless Chromium: a page from one local origin
// with COOP/COEP (the package, wllama's files, the SmolLM2 GGUF, the MiniLM files and the book all
// served from it), every request to any other origin blocked by Playwright's routing; Lectern with
// the wllama adapter as its provider and MiniLM in its worker adds the Thursday book (its first
// eight chapters: MiniLM embeds the whole book in ~160 s on this machine, too long for `npm test`),
// the reader is on page 40 of ~77, and a question with `alwaysRetrieve` and `maxContextTokens` gets a
// streamed answer from the local model whose passages are all at or before that page. Prints time to first token and tokens/s (no timing is
// asserted: figures belong to `npm run bench`). Skipped with a message when the model, MiniLM,
// wllama, pkg/ or the book cannot be had.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, launchChromium } from './browser.mjs';
import { localFixtures, localMounts } from './local/fixtures.mjs';
import { startIsolatedServer } from './local/isolated-server.mjs';

const fixtures = localFixtures();
if (fixtures.skip) console.log(fixtures.skip);

const READER_PAGE = 40;
// One thread unless told: on this 2-core machine, shared with builds, two threads were slower.
const THREADS = Number(process.env.LECTERN_WLLAMA_THREADS ?? 1);
const OUTSIDE = 'https://huggingface.co/ggml-org/models/resolve/main/tinyllamas/stories260K.gguf';

test('a reading session with a local model and every other origin blocked', { skip: fixtures.skip, timeout: 300_000 }, async () => {
  const server = await startIsolatedServer(localMounts(fixtures));
  // Belt and braces: no host name resolves either, whatever the routing sees.
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [...CHROMIUM_FLAGS, '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
  try {
    const context = await browser.newContext();
    const origin = new URL(server.url).origin;
    const blocked = [];
    const allowed = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin === origin) {
        allowed.push(url.pathname);
        return route.continue();
      }
      blocked.push(url.href);
      return route.abort('internetdisconnected');
    });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(server.url);
    // What a page that reached outside would get: a failed fetch, counted as blocked.
    const outside = await page.evaluate(
      (url) => fetch(url).then((r) => `status ${r.status}`, (e) => `failed: ${e.name}`),
      OUTSIDE,
    );
    assert.match(outside, /^failed/);
    assert.deepEqual(blocked, [OUTSIDE]);

    const result = await page.evaluate(
      async (options) => (await import('/session.js')).readingSession(options),
      {
        model: `/models/${fixtures.model.split('/').pop()}`,
        threads: THREADS,
        maxContextTokens: 150,
        chunkChars: 400,
        systemPrompt: 'Answer briefly from the passages of {{book_title}} below (the reader is on page {{current_page}}).',
        endBefore: 'CHAPTER IX THE MAN IN SPECTACLES',
        readerPage: READER_PAGE,
        question: 'Who is Gabriel Syme?',
        maxTokens: 32,
      },
    );
    console.log(
      `offline session: book ${result.book.pageCount} pages, ${result.book.chunkCount} passages embedded by MiniLM in ${(result.book.ms / 1000).toFixed(1)} s; ` +
        `model loaded in ${(result.loadMs / 1000).toFixed(1)} s (${THREADS} thread(s), multithread build in use: ${result.multithread}); ` +
        `first token ${(result.firstTokenMs / 1000).toFixed(1)} s, ${result.tokensPerSecond?.toFixed(1)} tokens/s, ` +
        `${result.usage.inputTokens} prompt tokens, ${result.usage.outputTokens} generated; answer: ${JSON.stringify(result.answer)}`,
    );

    assert.deepEqual(problems, []);
    assert.deepEqual(blocked, [OUTSIDE], 'the session itself asked no other origin for anything');
    // The routing saw the workers' requests too: MiniLM's weights are fetched by Lectern's worker.
    for (const path of ['/minilm/model.safetensors', '/wllama/wasm/wllama.wasm', `/models/${fixtures.model.split('/').pop()}`]) {
      assert.ok(allowed.includes(path), `${path} not seen by the routing: ${allowed.join(' ')}`);
    }
    assert.ok(result.crossOriginIsolated, 'COOP/COEP: wllama may use threads');
    assert.ok(result.book.pageCount > READER_PAGE + 10, `${result.book.pageCount} pages`);
    const phases = result.progress.map((p) => p.phase);
    assert.ok(phases.includes('download') && phases.at(-1) === 'ready', `load progress: ${phases}`);
    const last = result.progress.findLast((p) => p.phase === 'download');
    assert.equal(last.loaded, last.total);
    // The passages the model read: within the budget, none past the reader's page.
    const pages = [...result.system.matchAll(/\[Pages (\d+)-(\d+)\]/g)].map((m) => [Number(m[1]), Number(m[2])]);
    assert.ok(pages.length >= 1, result.system);
    assert.ok(pages.every(([, end]) => end <= READER_PAGE), `passages past page ${READER_PAGE}: ${JSON.stringify(pages)}`);
    assert.equal(result.calls, 1);
    assert.ok(result.signalPassed, 'the adapter got an AbortSignal');
    // A streamed answer, with wllama's own counts as usage.
    assert.ok(result.answer.trim().length > 0);
    assert.ok(result.deltas >= 2, `streamed in ${result.deltas} deltas`);
    assert.equal(result.usage.estimated, false, 'usage from wllama, not estimated');
    assert.ok(result.usage.inputTokens > 50 && result.usage.outputTokens > 0, JSON.stringify(result.usage));
  } finally {
    await browser.close();
    await server.close();
  }
});

// The custom provider's `{ signal }` (what the adapter hands wllama to stop generating): aborted when
// Lectern gives the call up — an idle timeout mid-answer, the host's AbortSignal — and not before.
const noPkg = existsSync(new URL('../../pkg/lectern.js', import.meta.url)) ? false : 'SKIPPED: no pkg/ (bash scripts/build.sh)';
test("a custom provider's signal aborts when Lectern gives the call up", { skip: noPkg, timeout: 60_000 }, async () => {
  const server = await startIsolatedServer({ '/': new URL('./local/page', import.meta.url).pathname, '/pkg/': new URL('../../pkg', import.meta.url).pathname });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(server.url);
    const outcome = await page.evaluate(async () => {
      const { default: init, Lectern } = await import('/pkg/lectern.js');
      await init();
      const signals = [];
      // One delta, then silence until aborted.
      const call = async (request, { signal }) => {
        signals.push(signal);
        return (async function* () {
          yield { choices: [{ delta: { content: 'Once' }, finish_reason: null }] };
          await new Promise((resolve) => signal.addEventListener('abort', resolve));
        })();
      };
      const atCall = [];
      const answered = async (request, { signal }) => {
        signals.push(signal);
        atCall.push(signal.aborted);
        return { choices: [{ message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }] };
      };
      const run = async (provider, sendOptions = {}) => {
        const lectern = await Lectern.open({ provider });
        const conversation = await lectern.createConversation({});
        try {
          return (await lectern.send(conversation.id, 'Tell me a story', sendOptions)).text;
        } catch (e) {
          return e.name;
        } finally {
          await lectern.close();
        }
      };
      const idle = await run({ kind: 'custom', local: true, call, timeouts: { idleMs: 300 } });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const aborted = await run({ kind: 'custom', local: true, call }, { signal: controller.signal });
      const done = await run({ kind: 'custom', stream: false, call: answered });
      return { idle, aborted, done, atCall, states: signals.map((s) => s instanceof AbortSignal && s.aborted) };
    });
    // The answered call's signal is aborted only once its answer was read (a no-op then).
    assert.deepEqual(outcome, { idle: 'TimeoutError', aborted: 'AbortError', done: 'Done.', atCall: [false], states: [true, true, true] });
  } finally {
    await browser.close();
    await server.close();
  }
});
