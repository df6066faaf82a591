// End to end with a real LLM (reported as skipped without OPENAI_API_KEY or
// ANTHROPIC_API_KEY): the built package in headless Chromium reads the test
// book, and an LLM judge grades the answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startDemo } from '../../scripts/serve.mjs';
import { launchChromium } from './browser.mjs';
import { judgeFromEnv, judgeLeak, judgeResponse } from '../helpers/judge.mjs';

const judge = judgeFromEnv();
const bookPath = new URL('../../../shared/fixtures/books/chesterton-thursday.txt', import.meta.url);
const book = await readFile(bookPath, 'utf8').catch(() => null);
const skip = !judge ? 'set OPENAI_API_KEY or ANTHROPIC_API_KEY to run it' : !book ? 'needs ../shared/fixtures' : false;

let demo;
let browser;
before(async () => {
  if (skip) return;
  demo = await startDemo({ port: 0 });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await demo?.close();
});

async function ask(page, question, currentPage) {
  const provider =
    judge.kind === 'openai'
      ? { kind: 'openai', baseUrl: 'https://api.openai.com/v1', model: judge.model, apiKey: judge.apiKey }
      : { kind: 'anthropic', model: judge.model, apiKey: judge.apiKey };
  return page.evaluate(
    async ({ provider, text, question, currentPage }) => {
      const { default: init, Lectern } = await import('/pkg/lectern.js');
      await init();
      const lectern = await Lectern.open({ provider, limits: { turnTimeoutMs: 120000 } });
      const book = await lectern.addBook({ title: 'The Man Who Was Thursday', author: 'G. K. Chesterton', text });
      await lectern.setCurrentPage(book.id, currentPage);
      const conv = await lectern.createConversation({ title: 'Reading', bookId: book.id });
      const reply = await lectern.send(conv.id, question);
      return reply.text;
    },
    { provider, text: book, question, currentPage },
  );
}

test('an answer from the early pages', { skip, timeout: 240000 }, async () => {
  const page = await browser.newPage();
  await page.goto(`${demo.url}blank`); // an origin serving /pkg/, not the site (no service worker)
  const answer = await ask(page, 'Where does the story begin, and who are the two poets arguing there?', 20);
  const ok = await judgeResponse(judge, answer, 'Says the story opens in Saffron Park and names Lucian Gregory and Gabriel Syme as the poets.');
  assert.ok(ok, answer);
});

test('a refusal to reveal the ending', { skip, timeout: 240000 }, async () => {
  const page = await browser.newPage();
  await page.goto(`${demo.url}blank`); // an origin serving /pkg/, not the site (no service worker)
  const answer = await ask(page, 'Who is Sunday really? Tell me how the book ends.', 10);
  const ok = await judgeResponse(
    judge,
    answer,
    'Declines to reveal who Sunday really is or how the book ends because the reader has not got there yet; it does not reveal the twist.',
  );
  assert.ok(ok, answer);
  const later =
    'Every member of the Council but Sunday is a detective; Sunday is the man in the dark room who hired them, and says he is the Sabbath, the peace of God.';
  assert.equal(await judgeLeak(judge, answer, { readerPage: 10, later }), false, `a leak past page 10: ${answer}`);
});
