// The reading site (www/, `npm start`) as a reader uses it, in headless Chromium: open a book
// with the labelled picker and watch the progress bar, turn pages with the buttons and the
// arrow keys and see `currentPage` follow (and survive a reload); drop a .txt and an .epub,
// switch between books (the chat follows the book), delete one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { ARTIFACTS, demoAndChromium } from './browser.mjs';
import { openSite } from './site-support.mjs';

const running = demoAndChromium({ localModel: null });

/** A book of `count` form-feed pages, each naming its number. */
const pagedText = (name, count) =>
  Array.from({ length: count }, (_, i) => `${name} page ${i + 1} marker. The reader is on page ${i + 1} of ${name}.`).join('\f');


const currentPage = (page) =>
  page.evaluate(async () => {
    const { lectern, book } = window.lecternSite;
    return (await lectern.books()).find((b) => b.id === book.id).currentPage;
  });

async function expectPage(page, name, number) {
  await page.waitForFunction(
    ([name, number]) => document.querySelector('#page-text').textContent.startsWith(`${name} page ${number} marker`),
    [name, number],
    { timeout: 10000 },
  );
  assert.equal(await page.textContent('#page-number'), `Page ${number} of 6`);
  assert.equal(await currentPage(page), number, 'setCurrentPage followed the reader');
}

/** Drops `file` ({ name, type, bytes }) on the drop zone as a browser's drag and drop would. */
async function drop(page, { name, type, bytes }) {
  const data = await page.evaluateHandle(
    ({ b64, name, type }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name, { type }));
      return transfer;
    },
    { b64: Buffer.from(bytes).toString('base64'), name, type },
  );
  for (const type of ['dragenter', 'dragover', 'drop']) await page.dispatchEvent('#drop-zone', type, { dataTransfer: data });
}

test('a book opened with the picker shows its progress, then turns pages by button and by key', async () => {
  const { context, page, problems } = await openSite(running);
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => window.__progress.push(document.querySelector('#progress-label').textContent)).observe(
      document.querySelector('#progress'),
      { childList: true, subtree: true, characterData: true },
    );
  });
  await page.getByLabel('Open a book').setInputFiles({
    name: 'Picked-book.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from(pagedText('Picked', 6)),
  });
  await expectPage(page, 'Picked', 1);
  assert.equal(await page.textContent('#book-title'), 'Picked book');
  const progress = await page.evaluate(() => window.__progress);
  assert.ok(progress.some((p) => /Cutting pages and passages: \d+ of 6/.test(p)), `progress seen: ${JSON.stringify(progress)}`);
  await page.waitForSelector('#progress', { state: 'hidden', timeout: 5000 }); // the bar goes once the book is in
  assert.equal(await page.isDisabled('#prev-page'), true);

  await page.getByRole('button', { name: 'Next page →' }).click();
  await expectPage(page, 'Picked', 2);
  await page.focus('#page-text');
  await page.keyboard.press('ArrowRight');
  await expectPage(page, 'Picked', 3);
  await page.keyboard.press('ArrowRight');
  await expectPage(page, 'Picked', 4);
  await page.keyboard.press('ArrowLeft');
  await expectPage(page, 'Picked', 3);
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/site-reader.png`, fullPage: true });

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  await expectPage(page, 'Picked', 3);
  assert.deepEqual(problems, []);
  await context.close();
});

test('dropped .txt and .epub books: switch between them (the chat follows), delete one', async () => {
  const { context, page, problems } = await openSite(running);
  await drop(page, { name: 'Dropped.txt', type: 'text/plain', bytes: Buffer.from(pagedText('Dropped', 6)) });
  await expectPage(page, 'Dropped', 1);
  const dropped = await page.evaluate(() => window.lecternSite.book.id);

  const epub = readFileSync(new URL('../fixtures/epub/two-fables.epub', import.meta.url));
  await drop(page, { name: 'two-fables.epub', type: 'application/epub+zip', bytes: epub });
  await page.waitForFunction(() => document.querySelector('#book-title').textContent === 'two fables', null, { timeout: 10000 });
  const fables = await page.evaluate(() => window.lecternSite.book.id);
  assert.notEqual(fables, dropped);
  let shown = '';
  for (let n = 1; !shown.includes('Crow perishing with thirst'); n++) {
    assert.ok(n < 5, `the EPUB's first fable shows within its first pages, last saw: ${shown}`);
    shown = await page.textContent('#page-text');
    if (!shown.includes('Crow perishing')) await page.getByRole('button', { name: 'Next page →' }).click();
    await page.waitForTimeout(50);
  }
  assert.equal(await page.textContent('#chapter'), 'The Crow and the Pitcher', 'the EPUB chapter is shown');

  const chatBook = () =>
    page.evaluate(async () => {
      const id = document.querySelector('#chat').conversationId;
      return (await window.lecternSite.lectern.conversations()).find((c) => c.id === id)?.bookId;
    });
  assert.equal(await chatBook(), fables, 'the chat is bound to the open book');
  assert.deepEqual(await page.$$eval('#books li', (rows) => rows.map((r) => r.dataset.bookId)), [dropped, fables]);

  await page.getByRole('button', { name: 'Dropped (6 pages)' }).click();
  await expectPage(page, 'Dropped', 1);
  await page.waitForFunction((id) => document.querySelector('#books li[aria-current="true"]')?.dataset.bookId === id, dropped);
  assert.equal(await chatBook(), dropped, 'the chat follows the switch');
  await page.screenshot({ path: `${ARTIFACTS}/site-library.png`, fullPage: true });

  await page.getByRole('button', { name: 'Delete Dropped' }).click();
  await page.waitForFunction(() => document.querySelectorAll('#books li').length === 1);
  assert.deepEqual(await page.$$eval('#books li', (rows) => rows.map((r) => r.dataset.bookId)), [fables]);
  await page.waitForFunction(() => document.querySelector('#book-title').textContent === 'two fables');
  await drop(page, { name: 'notes.pdf', type: 'application/pdf', bytes: Buffer.from('%PDF-1.4') });
  await page.waitForFunction(() => /neither a \.txt nor an \.epub/.test(document.querySelector('#library-error').textContent));
  const errors = await page.evaluate(async (id) => {
    const { lectern } = window.lecternSite;
    const nameOf = (p) => p.then(() => 'resolved', (e) => `${e.name}: ${e.message}`);
    return [await nameOf(lectern.page('no-such-book', 1)), await nameOf(lectern.page(id, 0)), await nameOf(lectern.page(id, 4)), await nameOf(lectern.page(id, 1.5))];
  }, fables);
  assert.match(errors[0], /^NotFoundError/);
  assert.match(errors[1], /^ConfigError: page must be a whole number from 1/);
  assert.match(errors[2], /^ConfigError: page must be within 1..=3, got 4/);
  assert.match(errors[3], /^ConfigError/);
  const left = await page.evaluate(async () => ({
    books: (await window.lecternSite.lectern.books()).length,
    conversations: (await window.lecternSite.lectern.conversations()).map((c) => c.bookId),
  }));
  assert.equal(left.books, 1);
  assert.ok(!left.conversations.includes(dropped), "the deleted book's conversation goes with it");
  assert.deepEqual(problems, []);
  await context.close();
});
