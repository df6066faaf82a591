// The reading site on two devices (two browser contexts, separate storage) signed in to the same
// sync server (scripts/sync-server.mjs on 127.0.0.1, started here; the demo server names it in
// /config.json). Both open the same file, which is then the same book (its id is a hash of the
// file); a question asked on the laptop shows on the phone, a page turned on the laptop turns the
// phone's reader, and the phone's question shows on the laptop. Skips without the sync server's
// packages (npm ci).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from './browser.mjs';
import { openSite } from './site-support.mjs';
import { startDemo } from '../../scripts/serve.mjs';
import { freePort, skip, startSyncServer } from './sync/server.mjs';

const running = { demo: null, browser: null };
let syncServer = null;
let data = null;

before(async () => {
  if (skip) return;
  data = mkdtempSync(join(tmpdir(), 'lectern-site-sync-'));
  const port = await freePort();
  syncServer = await startSyncServer(port, data);
  running.demo = await startDemo({ port: 0, minilm: null, localModel: null, syncUrl: `ws://127.0.0.1:${port}` });
  running.browser = await launchChromium();
});

after(async () => {
  await running.browser?.close();
  await running.demo?.close();
  await syncServer?.stop();
  if (data) rmSync(data, { recursive: true, force: true });
});

const FILLER = ' The tide came in and went out again.'.repeat(24);
const BOOK = [
  'The lighthouse keeper rose at dawn on the first page.',
  'On the second page the keeper mended his nets by the lighthouse.',
  'The third page tells of a storm over the harbour.',
  'On the fourth page a ship was sighted beyond the reef.',
].map((text) => text + FILLER).join('\f');

/** A device: the site signed in as `user`, the book open. */
async function device(user) {
  const site = await openSite(running);
  const { page } = site;
  await page.fill('#sync-user', user);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForFunction(() => /online/.test(document.querySelector('#sync-status').textContent), null, { timeout: 15000 });
  await page.getByLabel('Open a book').setInputFiles({ name: 'Keeper.txt', mimeType: 'text/plain', buffer: Buffer.from(BOOK) });
  await page.waitForFunction(() => document.querySelector('#page-number').textContent === 'Page 1 of 4');
  return site;
}

/** The chat's messages of `role` as shown. */
const shown = (page, role) => page.evaluate((role) => [...document.querySelector('#chat').shadowRoot.querySelectorAll(`[data-role="${role}"]`)].map((m) => m.textContent), role);

/** Waits until the chat on `page` shows a user message `text` and an answer after it. */
async function showsQuestion(page, text) {
  await page.waitForFunction((text) => {
    const root = document.querySelector('#chat').shadowRoot;
    const users = [...root.querySelectorAll('[data-role="user"]')];
    return users.some((m) => m.textContent.includes(text)) && root.querySelectorAll('[data-role="assistant"]').length >= users.length;
  }, text, { timeout: 15000 });
}

/** Asks `question` in the chat on `page` and waits for the answer. */
async function ask(page, question) {
  const chat = page.locator('#chat');
  await chat.getByRole('combobox', { name: 'Message' }).fill(question);
  await chat.getByRole('button', { name: 'Send' }).click();
  await page.waitForFunction(() => !document.querySelector('#chat').hasAttribute('busy') && document.querySelector('#chat').shadowRoot.querySelectorAll('[data-role="assistant"]').length > 0, null, { timeout: 15000 });
  await showsQuestion(page, question);
}

test('signed in on two devices, the site conversation and page follow', { skip }, async () => {
  const laptop = await device('reader-3');
  const phone = await device('reader-3');
  const bookId = await laptop.page.evaluate(() => window.lecternSite.book.id);
  assert.match(bookId, /^book-[0-9a-f]{32}$/);
  assert.equal(await phone.page.evaluate(() => window.lecternSite.book.id), bookId, 'the same file is the same book');

  await ask(laptop.page, 'lighthouse keeper');
  await showsQuestion(phone.page, 'lighthouse keeper');
  assert.deepEqual(await shown(phone.page, 'assistant'), await shown(laptop.page, 'assistant'), 'the same answer, with its quotes');

  await laptop.page.getByRole('button', { name: 'Next page →' }).click();
  await laptop.page.getByRole('button', { name: 'Next page →' }).click();
  await laptop.page.waitForFunction(() => document.querySelector('#page-number').textContent === 'Page 3 of 4');
  await phone.page.waitForFunction(() => document.querySelector('#page-number').textContent === 'Page 3 of 4', null, { timeout: 15000 });
  assert.equal(await phone.page.evaluate(async (id) => (await window.lecternSite.lectern.books()).find((b) => b.id === id).currentPage, bookId), 3, 'search_book now reads to page 3 on the phone too');

  await ask(phone.page, 'storm');
  await showsQuestion(laptop.page, 'storm');
  assert.deepEqual(await shown(laptop.page, 'user'), await shown(phone.page, 'user'));
  assert.deepEqual([...laptop.problems, ...phone.problems], []);
  await laptop.context.close();
  await phone.context.close();
});
