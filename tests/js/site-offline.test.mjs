// The reading site offline and installable: the first visit installs the service worker
// (www/sw.js) and it takes control; Chromium finds the site installable (manifest, icons, a
// worker with a fetch handler); a book is added; then the server is CLOSED and the context put
// offline, and a reload still boots the site from the worker's cache, lists the book, shows its
// page and answers with quotes from the book, which need no model. A changed shell is an update
// that waits for the reader's "Reload", then replaces the old cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, stat, utimes } from 'node:fs/promises';
import { startDemo } from '../../scripts/serve.mjs';
import { ARTIFACTS, launchChromium } from './browser.mjs';

test('after one visit the site installs, and works with the server gone and the network off', async () => {
  const demo = await startDemo({ port: 0, localModel: null, minilm: null });
  const browser = await launchChromium();
  let serverUp = true;
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(demo.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
    const cached = await page.evaluate(async () => {
      const names = await caches.keys();
      const shell = await caches.open(names.find((n) => n.startsWith('lectern-site-')));
      return { names, urls: (await shell.keys()).map((r) => new URL(r.url).pathname) };
    });
    for (const url of ['/', '/app.js', '/pkg/lectern.js', '/pkg/lectern_bg.wasm', '/pkg/lectern_worker.js', '/manifest.webmanifest', '/icons/icon-512.png']) {
      assert.ok(cached.urls.includes(url), `${url} is precached (${cached.urls.length} URLs)`);
    }

    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    const errors = installabilityErrors.map((e) => e.errorId).filter((id) => id !== 'in-incognito');
    assert.deepEqual(errors, [], 'Chromium finds the site installable');

    await page.getByRole('button', { name: 'Open the sample book' }).click();
    await page.waitForFunction(() => window.lecternSite.book !== null, null, { timeout: 60000 });
    const book = await page.evaluate(() => window.lecternSite.book);
    await page.waitForFunction(() => document.querySelector('#page-number').textContent.startsWith('Page 1 of'));
    const firstPage = await page.textContent('#page-text');

    await demo.close();
    serverUp = false;
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
    assert.equal(await page.textContent('#book-title'), book.title);
    assert.equal(await page.textContent('#page-text'), firstPage, 'the page comes from IndexedDB, offline');
    assert.equal(await page.$$eval('#books li', (rows) => rows.length), 1);
    assert.match(await page.inputValue('#model-choice'), /^quotes$/);

    const question = `What about ${firstPage.match(/[A-Za-z]{7,}/g)[2]}?`;
    const chat = page.locator('#chat');
    await chat.getByRole('combobox', { name: 'Message' }).fill(question);
    await chat.getByRole('button', { name: 'Send' }).click();
    await page.waitForFunction(() => {
      const answer = document.querySelector('#chat').shadowRoot.querySelector('[data-role="assistant"]');
      return answer && answer.getAttribute('aria-busy') !== 'true' && answer.textContent.length > 0;
    }, null, { timeout: 15000 });
    const text = await chat.locator('[data-role="assistant"]').first().textContent();
    assert.match(text, /Quoted from the book/, text);
    assert.match(text, /“[^”]+” p\. 1/, `it quotes page 1 (never past the reader's page): ${text}`);
    const answer = await page.evaluate(async () => {
      const { lectern, book } = window.lecternSite;
      const conversation = (await lectern.conversations()).find((c) => c.bookId === book.id);
      return (await lectern.messages(conversation.id)).find((m) => m.role === 'assistant');
    });
    assert.deepEqual(answer.quoted, { reason: 'provider' }, 'offline, with no model at all');
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/site-offline.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await browser.close();
    if (serverUp) await demo.close();
  }
});

test('a changed shell waits for "Update ready — Reload", never reloads mid-turn, then replaces the old cache', async () => {
  const demo = await startDemo({ port: 0, localModel: null, minilm: null });
  const browser = await launchChromium();
  const touched = new URL('../../www/site/progress.js', import.meta.url);
  const { atime, mtime } = await stat(touched);
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(demo.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
    const shells = () => page.evaluate(async () => (await caches.keys()).filter((n) => n.startsWith('lectern-site-')));
    const [old] = await shells();
    assert.ok(await page.isHidden('#update'), 'the first install offers no update');

    await utimes(touched, atime, new Date(mtime.getTime() + 60_000)); // a rebuilt file: a new hash
    await page.evaluate(() => {
      window.__sameDocument = true;
      return navigator.serviceWorker.getRegistration().then((r) => r.update());
    });
    await page.waitForSelector('#update', { state: 'visible', timeout: 30000 });
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'nothing reloads by itself');

    // Reload asked for mid-turn (the Demo model streams slowly enough to be caught busy): the page reloads only once the answer is complete.
    await page.selectOption('#model-choice', 'demo');
    await page.waitForFunction(() => document.querySelector('#model-status').textContent === 'Answering: Demo model (no AI)');
    const text = Array.from({ length: 3 }, (_, i) => `Page ${i + 1}: the lighthouse keeper. ${'The tide came in and went out. '.repeat(30)}`).join('\f');
    await page.getByLabel('Open a book').setInputFiles({ name: 'Keeper.txt', mimeType: 'text/plain', buffer: Buffer.from(text) });
    await page.waitForFunction(() => document.querySelector('#page-number').textContent === 'Page 1 of 3');
    await page.evaluate(() =>
      addEventListener('pagehide', () => sessionStorage.setItem('busyAtUnload', String(document.querySelector('#chat').hasAttribute('busy')))),
    );
    const chat = page.locator('#chat');
    await chat.getByRole('combobox', { name: 'Message' }).fill('lighthouse keeper');
    await chat.getByRole('button', { name: 'Send' }).click();
    await page.waitForSelector('#chat[busy]');
    await Promise.all([page.waitForEvent('load', { timeout: 30000 }), page.getByRole('button', { name: 'Reload' }).click()]);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
    assert.equal(await page.evaluate(() => window.__sameDocument), undefined, 'the reload came');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('busyAtUnload')), 'false', 'not mid-turn');
    await page.waitForFunction(() => /^Demo model \(no AI\)/.test(document.querySelector('#chat').shadowRoot.querySelector('[data-role="assistant"]')?.textContent ?? ''));
    const now = await shells();
    assert.equal(now.length, 1, `one shell cache: ${now}`);
    assert.notEqual(now[0], old, 'the new one');
    await context.close();
  } finally {
    await utimes(touched, atime, mtime);
    await browser.close();
    await demo.close();
  }
});
