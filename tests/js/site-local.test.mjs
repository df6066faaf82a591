// The reading site with no configuration when the server offers an in-browser model
// (scripts/fetch-smollm2.sh): the in-browser model is the default; it loads in the page, reads the
// open book's system prompt ahead of any question (so the question's read starts from its cached
// prefix), and the chat answers with it — no model server, through Lectern's own decoder
// (lectern/local) in a Worker, on two threads (the demo server is cross-origin isolated); then with the server closed and the network off, the reloaded
// site (its service worker) loads the model from the Cache API and answers again. A pick of the
// Demo model is remembered. Skipped when the model is not here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { startDemo } from '../../scripts/serve.mjs';
import { fetched } from './local/fixtures.mjs';
import { ARTIFACTS, ENGINE, launchChromium } from './browser.mjs';

const CHOICE_KEY = 'lectern-site-model';

test('the in-browser model, the default, reads the system prompt ahead and answers in the chat, and again offline', { timeout: 300000 }, async (t) => {
  const { value: model, skip } = fetched('LECTERN_SMOLLM2', 'fetch-smollm2.sh');
  if (!model || !existsSync('pkg/lectern_local_bg.wasm')) {
    t.skip(model ? 'SKIPPED: no pkg/lectern_local_bg.wasm (bash scripts/build.sh)' : skip);
    return;
  }
  const demo = await startDemo({ port: 0, localModel: model, minilm: null });
  const browser = await launchChromium();
  const context = await browser.newContext();
  let serverUp = true;
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  try {
    await page.goto(demo.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.equal(await page.inputValue('#model-choice'), 'quotes', 'quotes from the book are the default, the in-browser model one pick away');
    assert.match(await page.textContent('#model-choice option[value="local"]'), /^In-browser model \(SmolLM2/);
    assert.deepEqual(await page.$$eval('#model-choice option', (o) => o.map((x) => x.value)), ['quotes', 'local', 'demo', 'mock']);
    await page.selectOption('#model-choice', 'local');
    await page.waitForFunction((key) => localStorage.getItem(key) === 'local', CHOICE_KEY);
    await page.click('#open-sample');
    await page.waitForFunction(() => Number(document.body.dataset.page) >= 1, null, { timeout: 60000 });
    // The model loads and reads the book's system prompt ahead while the reader reads (the chat is
    // bound to the book just after its page shows: the read-ahead before that had no book).
    let ahead = null;
    for (let tries = 0; tries < 150 && !(ahead?.promptTokens > 100); tries += 1) {
      ahead = await page.evaluate(() => window.lecternSite.readingAhead);
      if (!(ahead?.promptTokens > 100)) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(ahead?.promptTokens > 100, `read ahead: ${JSON.stringify(ahead)}`);
    await page.evaluate(() => {
      window.__sendPlans = [];
      document.querySelector('#chat').addEventListener('lectern-send', (e) => window.__sendPlans.push(e.detail.options.maxContextTokens ?? null));
    });
    const chat = page.locator('#chat');
    const answered = async () => {
      const n = await chat.locator('[data-role="assistant"]').count();
      await chat.getByRole('combobox', { name: 'Message' }).fill('Say hello in five words.');
      await chat.getByRole('button', { name: 'Send' }).click();
      await page.waitForFunction(() => /is ready, in this page/.test(document.querySelector('#model-status').textContent), null, { timeout: 120000 });
      await page.waitForFunction((n) => {
        const answers = document.querySelector('#chat').shadowRoot.querySelectorAll('[data-role="assistant"]');
        return answers.length > n && answers[n].getAttribute('aria-busy') !== 'true' && answers[n].textContent.trim().length > 0;
      }, n, { timeout: 180000 });
      assert.equal(await chat.locator('[data-role="error"]').count(), 0, await chat.locator('[data-role="error"]').allTextContents().then(String));
    };
    await answered();
    // The demo server sends COOP/COEP: the model runs on two threads or more where the browser
    // has SharedArrayBuffer (not WebKitGTK here).
    const shared = await page.evaluate(() => crossOriginIsolated && typeof SharedArrayBuffer === 'function');
    assert.equal(shared, ENGINE !== 'webkit');
    const status = await page.textContent('#model-status');
    if (shared) assert.match(status, /on [2-4] threads/);
    else assert.doesNotMatch(status, /threads/);
    // Its plan: three passages within 300 tokens on two threads, 200 on one (docs/site.md).
    const plan = await page.evaluate(() => window.lecternSite.modelChoice.retrieval);
    assert.equal(plan.maxContextTokens, shared ? 300 : 200);
    assert.deepEqual(await page.evaluate(() => window.__sendPlans), [shared ? 300 : 200], 'the send says the plan of the threads the model runs on');
    // The question's prompt began with the system prompt read ahead: most of it came from the cache.
    const usage = await page.evaluate(async () => {
      const { lectern } = window.lecternSite;
      const [conversation] = (await lectern.conversations()).filter((c) => c.bookId === window.lecternSite.book.id);
      return lectern.usage(conversation.id);
    });
    assert.ok(usage.cachedInputTokens > 100, `the system prompt was read ahead: ${JSON.stringify(usage)}`);
    if (typeof context.setOffline !== 'function') {
      // WebKitGTK's driver here (WebDriver classic, tests/js/webkit/) cannot take the network away.
      console.log(`SKIPPED in ${process.env.LECTERN_BROWSER}: the offline half (the driver has no setOffline)`);
      assert.deepEqual(problems, []);
      return;
    }
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60000 });

    await demo.close();
    serverUp = false;
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.equal(await page.inputValue('#model-choice'), 'local', 'the pick is remembered offline');
    await answered();
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/site-local-model.png`, fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await browser.close();
    if (serverUp) await demo.close();
  }
});

test('a model that falls back to one thread gets the one-thread plan at its sends', { timeout: 300000 }, async (t) => {
  const { value: model, skip } = fetched('LECTERN_SMOLLM2', 'fetch-smollm2.sh');
  if (!model || !existsSync('pkg/lectern_local_bg.wasm')) {
    t.skip(model ? 'SKIPPED: no pkg/lectern_local_bg.wasm (bash scripts/build.sh)' : skip);
    return;
  }
  if (ENGINE === 'webkit') {
    t.skip('SKIPPED in webkit: it runs the model on one thread anyway (no SharedArrayBuffer), as planned');
    return;
  }
  const demo = await startDemo({ port: 0, localModel: model, minilm: null });
  const browser = await launchChromium();
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    // The model's Worker may not start Workers (as under a Content-Security-Policy): its helper
    // cannot start, so the threaded build runs on one thread.
    await page.addInitScript(() => {
      const PageWorker = globalThis.Worker;
      globalThis.Worker = class extends PageWorker {
        constructor(url, options) {
          if (String(url).endsWith('/lectern_local_worker.js')) {
            const noWorkers = 'data:text/javascript,globalThis.Worker=class{constructor(){throw new Error("no Workers here")}}';
            const source = `import ${JSON.stringify(noWorkers)};\nimport ${JSON.stringify(String(new URL(url, location.href)))};`;
            url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
          }
          super(url, options);
        }
      };
    });
    await page.addInitScript((key) => localStorage.setItem(key, 'local'), CHOICE_KEY);
    await page.goto(demo.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    await page.click('#open-sample');
    await page.waitForFunction(() => /is ready, in this page/.test(document.querySelector('#model-status').textContent), null, { timeout: 120000 });
    assert.doesNotMatch(await page.textContent('#model-status'), /threads/, 'on one thread');
    const predicted = await page.evaluate(() => window.lecternSite.modelChoice.retrieval.maxContextTokens);
    if (predicted !== 300) {
      t.skip('SKIPPED: one logical processor here: the site plans for one thread from the start');
      return;
    }
    const plans = await page.evaluate(async () => {
      const plans = [];
      const chat = document.querySelector('#chat');
      chat.addEventListener('lectern-send', (e) => plans.push(e.detail.options.maxContextTokens ?? null));
      await chat.send('Who is Syme?');
      return plans;
    });
    assert.deepEqual(plans, [200], "the send carries the one-thread plan");
  } finally {
    await context.close();
    await browser.close();
    await demo.close();
  }
});
