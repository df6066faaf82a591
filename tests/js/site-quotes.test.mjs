// The reading site as a newcomer finds it (issue 46): with no configuration the answerer is
// "Quotes from the book"; on page 31 of the sample book, "Who is Gregory and what does he
// believe?" is answered with the book's own sentences, each with its page as a link, labelled as
// quotes, every word in the pages up to 31; a citation chosen turns the reader to the page that
// holds the sentence and marks it there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { ARTIFACTS, demoAndChromium } from './browser.mjs';
import { openSite } from './site-support.mjs';

const running = demoAndChromium({ localModel: null });
const THURSDAY = new URL('../../../shared/fixtures/books/chesterton-thursday.txt', import.meta.url);
const READER_PAGE = 31;
const collapsed = (text) => text.replace(/\s+/g, ' ').trim();

test('a newcomer on page 31 gets the book\'s own words, each with its page, and a citation turns the page to it', { timeout: 120000 }, async (t) => {
  if (!existsSync(THURSDAY)) return t.skip(`SKIPPED: the sample book is Thursday only with ${THURSDAY.pathname}`);
  const { context, page, problems } = await openSite(running);
  assert.equal(await page.inputValue('#model-choice'), 'quotes', 'the default');
  assert.match(await page.textContent('#model-about'), /nothing is invented/);
  await page.getByRole('button', { name: 'Open the sample book' }).click();
  await page.waitForFunction(() => /^Page 1 of \d+$/.test(document.querySelector('#page-number').textContent), null, { timeout: 60000 });
  for (let n = 2; n <= READER_PAGE; n++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction((n) => document.body.dataset.page === String(n), READER_PAGE, { timeout: 30000 });

  const chat = page.locator('#chat');
  await chat.getByRole('combobox', { name: 'Message' }).fill('Who is Gregory and what does he believe?');
  await chat.getByRole('button', { name: 'Send' }).click();
  await page.waitForFunction(() => {
    const answer = document.querySelector('#chat').shadowRoot.querySelector('[data-role="assistant"]');
    return answer?.querySelector('[part~="quoted"]') && !document.querySelector('#chat').hasAttribute('busy');
  }, null, { timeout: 30000 });
  const answer = chat.locator('[data-role="assistant"]').last();
  assert.match(await answer.locator('[part~="quoted"]').textContent(), /Quoted from the book/);

  const quotes = await answer.locator('[part~="sentence"]').evaluateAll((spans) =>
    spans.map((s) => ({ text: s.firstChild.textContent, cites: [...s.querySelectorAll('[part~="cite"]')].map((b) => b.textContent), unsupported: s.matches('.unsupported') })),
  );
  assert.ok(quotes.length >= 1 && quotes.length <= 3, JSON.stringify(quotes));
  const read = await page.evaluate(async (last) => {
    const { lectern, book } = window.lecternSite;
    const texts = [];
    for (let n = 1; n <= last; n++) texts.push((await lectern.page(book.id, n)).text);
    return texts.join(' ');
  }, READER_PAGE);
  for (const quote of quotes) {
    assert.equal(quote.unsupported, false);
    assert.equal(quote.cites.length, 1, JSON.stringify(quote));
    const words = collapsed(quote.text).replace(/^“|”$/g, '');
    assert.ok(collapsed(read).includes(words), `the book's words, up to p. ${READER_PAGE}: ${words}`);
    const [, last] = quote.cites[0].match(/(\d+)$/);
    assert.ok(Number(last) <= READER_PAGE, quote.cites[0]);
  }
  assert.ok(quotes.some((q) => /Gregory/.test(q.text)), JSON.stringify(quotes));
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/site-quotes.png`, fullPage: true });

  // The first quote's citation: the page that holds it, the sentence marked there.
  const first = collapsed(quotes[0].text).replace(/^“|”$/g, '');
  await answer.locator('[part~="cite"]').first().click();
  await page.waitForFunction(() => document.querySelector('#page-text mark.cited'), null, { timeout: 10000 });
  assert.equal(collapsed(await page.textContent('#page-text mark.cited')), first);
  const shown = Number(await page.evaluate(() => document.body.dataset.page));
  assert.ok(shown <= READER_PAGE, `never past the reader's page: ${shown}`);
  await page.screenshot({ path: `${ARTIFACTS}/site-quotes-cited.png`, fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});
