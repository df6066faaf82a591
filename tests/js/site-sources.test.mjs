// The reading site with an answer's sources: the sample book (Thursday) open on a later page,
// the Demo model asked "Who is Gregory and what does he believe?" answers with its sources
// listed under it (by pages, none past the reader's); a source opened and its "Go to" chosen
// turns the reader to its first page, through the reader's page turn (`setCurrentPage` follows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { ARTIFACTS, demoAndChromium } from './browser.mjs';
import { openSite } from './site-support.mjs';

const running = demoAndChromium({ localModel: null });
const THURSDAY = new URL('../../../shared/fixtures/books/chesterton-thursday.txt', import.meta.url);
const READER_PAGE = 8;

const pageNumber = (page) => page.evaluate(() => document.querySelector('#page-number').textContent);
const currentPage = (page) =>
  page.evaluate(async () => {
    const { lectern, book } = window.lecternSite;
    return (await lectern.books()).find((b) => b.id === book.id).currentPage;
  });

test("an answer's sources are listed in the bound chat, and one turns the reader to its page", { timeout: 120000 }, async (t) => {
  if (!existsSync(THURSDAY)) return t.skip(`SKIPPED: the sample book is Thursday only with ${THURSDAY.pathname}`);
  const { context, page, problems } = await openSite(running);
  assert.equal(await page.inputValue('#model-choice'), 'quotes', 'the default: quotes from the book (site-quotes.test.mjs)');
  await page.selectOption('#model-choice', 'demo');
  await page.waitForFunction(() => document.querySelector('#model-status').textContent === 'Answering: Demo model (no AI)');
  await page.getByRole('button', { name: 'Open the sample book' }).click();
  await page.waitForFunction(() => /^Page 1 of \d+$/.test(document.querySelector('#page-number').textContent), null, { timeout: 60000 });
  assert.equal(await page.textContent('#book-title'), 'The Man Who Was Thursday');
  const pages = Number((await pageNumber(page)).match(/of (\d+)/)[1]);
  for (let n = 2; n <= READER_PAGE; n++) {
    await page.getByRole('button', { name: 'Next page →' }).click();
    await page.waitForFunction((n) => document.body.dataset.page === String(n), n);
  }
  assert.equal(await currentPage(page), READER_PAGE);

  const chat = page.locator('#chat');
  await chat.getByRole('combobox', { name: 'Message' }).fill('Who is Gregory and what does he believe?');
  await chat.getByRole('button', { name: 'Send' }).click();
  await page.waitForFunction(() => {
    const answer = document.querySelector('#chat').shadowRoot.querySelector('[data-role="assistant"]');
    return answer && answer.getAttribute('aria-busy') === 'false' && !document.querySelector('#chat').hasAttribute('busy');
  }, null, { timeout: 30000 });
  const answer = chat.locator('[data-role="assistant"]').last();
  assert.match(await answer.locator('.body').textContent(), /^Demo model \(no AI\).*Gregory/s);

  // The sources: labelled by pages, in book order, none past the reader's page, the reader's pages among them.
  const sources = answer.locator('[part~="sources"] [part~="source"]');
  const shown = await sources.evaluateAll((items) => items.map((li) => ({ label: li.querySelector('button').textContent, via: li.dataset.via })));
  assert.ok(shown.length >= 2, JSON.stringify(shown));
  const ranges = shown.map(({ label }) => {
    const [, start, end] = label.match(/^p\. (\d+)(?:–(\d+))?$/) ?? assert.fail(`a page label: ${label}`);
    return [Number(start), Number(end ?? start)];
  });
  for (const [start, end] of ranges) assert.ok(start <= end && end <= READER_PAGE, `never past the reader's page: ${JSON.stringify(shown)}`);
  assert.deepEqual(ranges, [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]), 'book order');
  assert.ok(shown.some((s) => s.via === 'search_book'), `the demo model's search: ${JSON.stringify(shown)}`);
  assert.deepEqual(shown.find((s) => s.via === 'readerPage')?.label, `p. ${READER_PAGE - 1}–${READER_PAGE}`);

  // The earliest source, opened: it quotes the book; "Go to" turns the reader there.
  const [target] = ranges;
  const first = sources.first();
  await first.locator('button[aria-expanded]').click();
  const quoted = await first.locator('[part~="source-text"] blockquote').textContent();
  const stored = await page.evaluate(async ([start, end]) => {
    const { lectern, book } = window.lecternSite;
    const texts = [];
    for (let n = start; n <= end; n++) texts.push((await lectern.page(book.id, n)).text.replace(/\s+/g, ' '));
    return texts.join(' ');
  }, target);
  const words = quoted.replace(/\s+/g, ' ').trim().split(' ');
  assert.ok(stored.includes(words.slice(0, 8).join(' ')), `the passage is from pages ${target.join('–')}: ${quoted.slice(0, 120)}`);
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/site-sources.png`, fullPage: true });

  assert.notEqual(target[0], READER_PAGE);
  await first.getByRole('button', { name: /^Go to p\. / }).click();
  await page.waitForFunction((n) => document.body.dataset.page === String(n), target[0], { timeout: 10000 });
  assert.equal(await pageNumber(page), `Page ${target[0]} of ${pages}`);
  assert.equal(await currentPage(page), target[0], 'setCurrentPage followed the turn');
  assert.ok(await page.evaluate(() => document.activeElement?.id === 'page-text'), 'the page is in view, focused');
  assert.deepEqual(problems, []);
  await context.close();
});
