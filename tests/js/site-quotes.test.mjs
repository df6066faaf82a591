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

test("where the browser has its own model to download, a click on \"Use your browser's model\" fetches it and it answers first, under the same gate", { timeout: 120000 }, async () => {
  const { readFile } = await import('node:fs/promises');
  const standIn = (await readFile(new URL('./prompt-api/stand-in.js', import.meta.url), 'utf8')).replace(/^export /gm, '');
  const context = await running.browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  // The scripted LanguageModel, installed before the site's scripts run; its answers cite passage 1.
  await page.addInitScript(`${standIn}\nwindow.standIn = installPromptApiStandIn(globalThis, { availability: 'downloadable', reply: () => ['The keeper mended his nets [1].', ' He flew to the moon [1].'] });`);
  await page.goto(running.demo.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  assert.equal(await page.inputValue('#model-choice'), 'quotes', 'not downloaded yet: quotes from the book');
  const button = page.getByRole('button', { name: "Use your browser's model" });
  assert.equal(await button.isVisible(), true);
  await button.click();
  await page.waitForFunction(() => document.querySelector('#model-choice').value === 'browser', null, { timeout: 20000 });
  assert.deepEqual((await page.$$eval('#model-choice option', (o) => o.map((x) => x.value))).slice(0, 2), ['browser', 'quotes'], 'offered first');
  assert.equal(await button.isHidden(), true);
  const downloads = await page.evaluate(() => window.standIn.calls.filter((c) => c.method === 'create').map((c) => c.activation));
  assert.equal(downloads[0], true, 'the download was asked for in the click');

  const pages = ['The keeper mended his nets by the lighthouse every evening.', 'A storm rose over the harbour that night.'];
  await page.getByLabel('Open a book').setInputFiles({ name: 'Keeper.txt', mimeType: 'text/plain', buffer: Buffer.from(pages.join('\f')) });
  await page.waitForFunction(() => document.querySelector('#page-number').textContent === 'Page 1 of 2');
  const chat = page.locator('#chat');
  await chat.getByRole('combobox', { name: 'Message' }).fill('What did the keeper do?');
  await chat.getByRole('button', { name: 'Send' }).click();
  await page.waitForFunction(() => document.querySelector('#chat').shadowRoot.querySelectorAll('[data-role="assistant"] [part~="sentence"]').length === 2, null, { timeout: 20000 });
  const parts = await chat.locator('[data-role="assistant"] [part~="sentence"]').evaluateAll((spans) => spans.map((s) => s.getAttribute('part')));
  assert.deepEqual(parts, ['sentence', 'sentence unsupported'], 'the right sentence linked, the invented one marked');
  await page.screenshot({ path: `${ARTIFACTS}/site-browser-model.png`, fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});
