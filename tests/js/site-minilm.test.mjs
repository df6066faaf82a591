// The reading site with its default embedder, as `npm start` serves it: all-MiniLM-L6-v2 in
// Lectern's worker. A book opens and is read and searched at once (by words); a
// status line shows its vectors filling in behind the reader; then the book has them, and a
// reload keeps them (nothing is computed twice). Needs the MiniLM files (scripts/fetch-minilm.sh
// → LECTERN_MINILM_DIR); skips with a message without them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { demoAndChromium } from './browser.mjs';
import { openSite } from './site-support.mjs';

const dir = process.env.LECTERN_MINILM_DIR;
const skip = dir && existsSync(join(dir, 'model.safetensors')) ? false : 'SKIPPED: no MiniLM files (LECTERN_MINILM_DIR, scripts/fetch-minilm.sh)';
const running = demoAndChromium({ localModel: null, minilm: skip ? null : dir });

const PAGES = Array.from({ length: 8 }, (_, i) =>
  `On page ${i + 1} the lighthouse keeper wrote in his log about the ${['storm', 'gulls', 'tide', 'wreck'][i % 4]}.` +
  ' The lamp turned all night and the sea was grey.'.repeat(20),
);

/** The open book's record. */
const openBook = (page) =>
  page.evaluate(async () => {
    const { lectern, book } = window.lecternSite;
    return (await lectern.books()).find((b) => b.id === book.id);
  });

test('a book opens and is searched at once while MiniLM embeds it behind the reader, with a status line', { skip }, async () => {
  const { context, page, problems } = await openSite(running);
  await page.evaluate(() => {
    window.__statuses = [];
    const line = document.querySelector('#search-status');
    new MutationObserver(() => !line.hidden && window.__statuses.push(line.textContent)).observe(line, {
      childList: true,
      characterData: true,
      subtree: true,
      attributes: true,
    });
  });
  await page.getByLabel('Open a book').setInputFiles({
    name: 'Keeper.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from(PAGES.join('\f')),
  });
  await page.waitForFunction(() => document.querySelector('#page-text').textContent.startsWith('On page 1'));
  const opened = await openBook(page);
  assert.equal(opened.embedder, 'sentence-transformers/all-MiniLM-L6-v2');
  assert.equal(opened.dimensions, 0, 'open and searchable before its vectors');
  const found = await page.evaluate(() => window.lecternSite.lectern.search('wreck', { k: 2 }));
  assert.equal(found.length, 2, 'searched by words meanwhile');

  // (waitForFunction takes no async predicate: a promise is truthy.)
  for (let waited = 0; (await openBook(page)).dimensions !== 384; waited += 250) {
    assert.ok(waited < 180000, 'the vectors came within 3 minutes');
    await new Promise((r) => setTimeout(r, 250));
  }
  await page.waitForFunction(() => document.querySelector('#search-status').hidden, null, { timeout: 5000 });
  const statuses = await page.evaluate(() => window.__statuses);
  assert.ok(statuses.some((s) => /^Fetching the search model: \d+ %/.test(s)), statuses.join(' | '));
  assert.ok(statuses.some((s) => /Preparing search by meaning: \d+ of \d+ passages/.test(s)), statuses.join(' | '));
  assert.ok(statuses.every((s) => s.endsWith('(searching by words meanwhile)')), statuses.join(' | '));

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  const reopened = await openBook(page);
  assert.equal(reopened.dimensions, 384, 'the vectors were stored');
  assert.equal(await page.locator('#search-status').isHidden(), true, 'nothing to compute again');
  const meaning = await page.evaluate(() => window.lecternSite.lectern.search('a ship broken on the rocks', { k: 1 }));
  assert.equal(meaning.length, 1);
  assert.deepEqual(problems, []);
  await context.close();
});
