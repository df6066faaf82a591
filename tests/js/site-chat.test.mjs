// The reading site's chat pane: <lectern-chat> bound to the open book, answered by the demo
// model in the page. The answer streams in, quotes passages, and never quotes a page past the
// reader's: a word found only on page 5 is not found from page 2, and is once the reader is past it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { ARTIFACTS, demoAndChromium } from './browser.mjs';
import { openSite } from './site-support.mjs';

const running = demoAndChromium({ localModel: null });

const FILLER = ' The tide came in and went out again.'.repeat(24);
const PAGES = [
  'The lighthouse keeper rose at dawn on the first page.',
  'On the second page the keeper mended his nets by the lighthouse.',
  'The third page tells of a storm over the harbour.',
  'On the fourth page a ship was sighted beyond the reef.',
  'On the fifth page the keeper found the Zanzibar chart inside the lighthouse.',
  'The sixth page ends the tale.',
].map((text) => text + FILLER);

/** Asks `question` in the chat; resolves with the answer's text and the lengths it grew through. */
async function ask(page, question) {
  const chat = page.locator('#chat');
  const before = await chat.locator('[data-role="assistant"]').count();
  await page.evaluate(() => {
    window.__lengths = [];
    const root = document.querySelector('#chat').shadowRoot;
    window.__observer?.disconnect();
    window.__observer = new MutationObserver(() => {
      const answers = root.querySelectorAll('[data-role="assistant"]');
      window.__lengths.push(answers[answers.length - 1]?.textContent.length ?? 0);
    });
    window.__observer.observe(root, { childList: true, subtree: true, characterData: true });
  });
  await chat.getByRole('combobox', { name: 'Message' }).fill(question);
  await chat.getByRole('button', { name: 'Send' }).click();
  const answer = chat.locator('[data-role="assistant"]').nth(before);
  await answer.waitFor({ timeout: 10000 });
  await page.waitForFunction((n) => {
    const answers = document.querySelector('#chat').shadowRoot.querySelectorAll('[data-role="assistant"]');
    return answers.length > n && answers[n].getAttribute('aria-busy') !== 'true' && answers[n].textContent.length > 0;
  }, before, { timeout: 15000 });
  return { text: await answer.textContent(), lengths: await page.evaluate(() => window.__lengths) };
}

test('a question in the bound chat streams a quoted answer that never reads past the page', async () => {
  const { context, page, problems } = await openSite(running);
  assert.equal(await page.inputValue('#model-choice'), 'quotes', 'with no configuration and no local model: quotes from the book');
  await page.selectOption('#model-choice', 'demo');
  await page.waitForFunction(() => document.querySelector('#model-status').textContent === 'Answering: Demo model (no AI)');
  await page.getByLabel('Open a book').setInputFiles({ name: 'Keeper.txt', mimeType: 'text/plain', buffer: Buffer.from(PAGES.join('\f')) });
  await page.waitForFunction(() => document.querySelector('#page-number').textContent === 'Page 1 of 6');
  await page.getByRole('button', { name: 'Next page →' }).click();
  await page.waitForFunction(() => document.querySelector('#page-number').textContent === 'Page 2 of 6');

  const early = await ask(page, 'Zanzibar');
  assert.match(early.text, /Demo model \(no AI\)/);
  assert.doesNotMatch(early.text, /fifth page|Zanzibar chart/, `nothing past page 2: ${early.text}`);
  const keeper = await ask(page, 'lighthouse keeper');
  assert.match(keeper.text, /From pages? [12]/, keeper.text);
  assert.doesNotMatch(keeper.text, /fifth page/, keeper.text);
  const grew = [...new Set(keeper.lengths)].filter((n) => n > 0 && n < keeper.text.length);
  assert.ok(grew.length >= 3, `the answer streams in: ${JSON.stringify(keeper.lengths)}`);

  for (let n = 3; n <= 6; n++) {
    await page.getByRole('button', { name: 'Next page →' }).click();
    await page.waitForFunction((n) => document.querySelector('#page-number').textContent === `Page ${n} of 6`, n);
  }
  const late = await ask(page, 'Zanzibar');
  assert.match(late.text, /From pages? (\d–)?5/, late.text);
  assert.match(late.text, /Zanzibar chart/, late.text);
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/site-chat.png`, fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test("the chat's settings reopen the site's Lectern on that endpoint; the Model menu goes back", async () => {
  const { context, page, problems } = await openSite(running);
  await page.getByLabel('Open a book').setInputFiles({ name: 'Keeper.txt', mimeType: 'text/plain', buffer: Buffer.from(PAGES.join('\f')) });
  await page.waitForFunction(() => document.querySelector('#page-number').textContent === 'Page 1 of 6');

  const chat = page.locator('#chat');
  await chat.getByText('Model settings').click();
  await chat.getByLabel('Base URL').fill(`${running.demo.mockUrl}/v1`);
  await chat.getByLabel('Model', { exact: true }).fill('mock-endpoint');
  await chat.getByRole('button', { name: 'Save' }).click();
  await page.waitForFunction(() => document.querySelector('#model-choice').value === 'custom', null, { timeout: 10000 });
  assert.match(await page.textContent('#model-choice option[value="custom"]'), /mock-endpoint/);
  const viaEndpoint = await ask(page, 'Hello endpoint');
  assert.match(viaEndpoint.text, /Mock reply to: Hello endpoint/);

  await page.selectOption('#model-choice', 'demo');
  await page.waitForFunction(() => document.querySelector('#model-status').textContent === 'Answering: Demo model (no AI)');
  const viaDemo = await ask(page, 'lighthouse');
  assert.match(viaDemo.text, /^Demo model \(no AI\)/);
  assert.deepEqual(problems, []);
  await context.close();
});
