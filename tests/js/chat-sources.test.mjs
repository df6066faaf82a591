// <lectern-chat> in a book conversation on www/chat.html, answered by the mock server: each
// answer lists its sources by pages ("p. 1 · p. 2–3"), an item opens (button, aria-expanded,
// Enter) to its passage as text (an <img onerror> in the book stays text) with how it came,
// and "Go to" dispatches `lectern-source` with the source; an answer naming what no source says
// is marked "Not found in the book" (a faithful one is not); a turn the host sends itself shows
// its sources too; and a reload (a new Lectern on the same database) shows them all again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAndChromium } from './browser.mjs';
import { ask, chatOf, openChat, screenshot, waitForAnswer, waitIdle } from './chat-support.mjs';

const running = demoAndChromium({ chunkDelayMs: 2 });

// One sentence a page, shorter than a chunk and longer than the overlap: one passage a page.
const FILLER = ', and the tide came in and went out again'.repeat(12);
const PAGES = [
  'On the first page the keeper found the Zanzibar chart inside the lighthouse',
  'On the second page the keeper mended his nets by the lighthouse',
  'On the third page a storm rose over the harbour <img src=x onerror="window.__xss=1">',
  'On the fourth page a ship was sighted beyond the reef',
  'On the fifth page the keeper sailed away',
].map((text) => `${text}${FILLER}.`);

const FAITHFUL = 'The keeper found the Zanzibar chart inside the lighthouse.';
const INVENTED = 'He won the Fields Medal in Stockholm.';
const HOST_SENT = 'A storm rose over the harbour.';

/** Adds the book, puts the reader on page 3, and shows the book's conversation in the chat. */
async function openBookConversation(page) {
  return page.evaluate(async (text) => {
    const chat = document.querySelector('lectern-chat');
    const book = await chat.lectern.addBook({ title: 'The Keeper', text });
    await chat.lectern.setCurrentPage(book.id, 3);
    const conversation = await chat.lectern.createConversation({ title: 'Reading', bookId: book.id });
    chat.conversationId = conversation.id;
    await chat.ready;
    window.__sourceEvents = [];
    document.addEventListener('lectern-source', (event) =>
      window.__sourceEvents.push({ detail: event.detail, bubbles: event.bubbles, composed: event.composed, target: event.target.localName }),
    );
    return { bookId: book.id, conversationId: conversation.id };
  }, PAGES.join('\f'));
}

/** What each assistant answer shows of its sources: labels, via, the not-found mark and its title. */
function shownSources(page) {
  return page.evaluate(() =>
    [...document.querySelector('lectern-chat').shadowRoot.querySelectorAll('li.message.assistant')].map((li) => {
      const mark = li.querySelector('[part~="not-found"]');
      return {
        answer: li.querySelector('.body').textContent,
        labels: [...li.querySelectorAll('[part~="sources"] [part~="source"] button[aria-expanded]')].map((b) => b.textContent),
        via: [...li.querySelectorAll('[part~="source"]')].map((s) => s.dataset.via),
        notFound: mark ? { text: mark.firstChild.textContent, title: mark.title, visible: mark.checkVisibility() } : null,
      };
    }),
  );
}

/** The stored assistant answers' sources, as the engine keeps them. */
function storedSources(page, conversationId) {
  return page.evaluate(async (id) => {
    const messages = await document.querySelector('lectern-chat').lectern.messages(id);
    return messages.filter((m) => m.role === 'assistant' && m.content).map((m) => ({ sources: m.sources ?? [], sourceCheck: m.sourceCheck }));
  }, conversationId);
}

const label = ({ startPage, endPage }) => (startPage === endPage ? `p. ${startPage}` : `p. ${startPage}–${endPage}`);

/** Opens the `n`th source of the last answer; resolves with its locators. */
async function openSource(page, n) {
  const item = chatOf(page).assistant.last().locator('[part~="source"]').nth(n);
  const toggle = item.locator('button[aria-expanded]');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  const panel = item.locator('[part~="source-text"]');
  await panel.waitFor({ state: 'visible' });
  assert.equal(await toggle.getAttribute('aria-controls'), await panel.getAttribute('id'));
  return { item, toggle, panel, go: item.getByRole('button', { name: /^Go to p\. / }) };
}

test('answers list their sources by page, open to the passage as text, go to the page, are marked when unsupported, and come back after a reload', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const { bookId, conversationId } = await openBookConversation(page);
  const ui = chatOf(page);

  // A faithful answer after a search: the search's passage (p. 1) and the reader's pages (2–3).
  await chat.script([{ toolCalls: [{ id: 'call_s', name: 'search_book', arguments: { query: 'Zanzibar chart' } }] }, { text: FAITHFUL }]);
  await ask(page, 'Where is the Zanzibar chart?');
  await waitForAnswer(page, FAITHFUL);
  await waitIdle(page);
  const [stored] = await storedSources(page, conversationId);
  assert.deepEqual(stored.sources.map((s) => [s.startPage, s.endPage, s.via]), [[1, 1, 'search_book'], [2, 3, 'readerPage']], JSON.stringify(stored));
  assert.equal(stored.sourceCheck?.grounded, true, JSON.stringify(stored.sourceCheck));
  let shown = await shownSources(page);
  assert.deepEqual(shown.at(-1).labels, ['p. 1', 'p. 2–3']);
  assert.deepEqual(shown.at(-1).via, ['search_book', 'readerPage']);
  assert.equal(shown.at(-1).notFound, null, 'a faithful answer is not marked');
  assert.match(await ui.assistant.last().locator('[part~="sources"]').innerText(), /^Sources:\s*p\. 1\s*p\. 2–3\s*$/);
  assert.equal(await ui.status.textContent(), 'Answer complete');

  // Opened: the passage as the model read it, as text, with how it came.
  const searched = await openSource(page, 0);
  assert.equal(await searched.panel.locator('blockquote').textContent(), stored.sources[0].text);
  assert.match(stored.sources[0].text, /Zanzibar chart/);
  assert.match(await searched.panel.textContent(), /Searched by the assistant/);
  const reader = await openSource(page, 1);
  assert.equal(await reader.panel.locator('blockquote').textContent(), stored.sources[1].text);
  assert.match(await reader.panel.textContent(), /From your page/);
  assert.match(await reader.panel.locator('blockquote').textContent(), /<img src=x onerror="window.__xss=1">/);
  const inert = await page.evaluate(() => ({
    xss: window.__xss,
    images: document.querySelector('lectern-chat').shadowRoot.querySelectorAll('img').length,
  }));
  assert.deepEqual(inert, { xss: undefined, images: 0 }, 'the passage is text, never HTML');

  // The keyboard closes and opens an item (a real button).
  await searched.toggle.focus();
  await page.keyboard.press('Enter');
  assert.equal(await searched.toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await searched.panel.isHidden(), true);
  await page.keyboard.press('Space');
  assert.equal(await searched.toggle.getAttribute('aria-expanded'), 'true');

  // "Go to" tells the host, out of the shadow root, which passage to turn to.
  await reader.go.click();
  await searched.go.focus();
  await page.keyboard.press('Enter');
  const events = await page.evaluate(() => window.__sourceEvents);
  assert.deepEqual(events, [
    { detail: { bookId, startPage: 2, endPage: 3, via: 'readerPage', text: stored.sources[1].text }, bubbles: true, composed: true, target: 'lectern-chat' },
    { detail: { bookId, startPage: 1, endPage: 1, via: 'search_book', text: stored.sources[0].text }, bubbles: true, composed: true, target: 'lectern-chat' },
  ]);

  // An answer that invents: marked, its sources still listed.
  await chat.script([{ text: INVENTED }]);
  await ask(page, 'What became of the keeper?');
  await waitForAnswer(page, `${INVENTED} not in the book`); // the sentence, marked
  await waitIdle(page);
  shown = await shownSources(page);
  const invented = shown.at(-1);
  assert.equal(invented.notFound?.text, 'Not found in the book');
  assert.ok(invented.notFound.visible, 'the mark is visible');
  assert.match(invented.notFound.title, /Fields/);
  assert.match(invented.notFound.title, /Stockholm/);
  assert.deepEqual(invented.labels, ['p. 2–3'], 'the sources stay listed');
  assert.equal(await ui.status.textContent(), 'Answer complete, not found in the book');
  assert.equal(shown[0].notFound, null, 'the faithful answer still is not marked');

  // A turn the host sends itself (the chat hears its finish event): its sources show too.
  await chat.script([{ text: HOST_SENT }]);
  await page.evaluate(([id, text]) => document.querySelector('lectern-chat').lectern.send(id, text), [conversationId, 'What happened on the third page?']);
  await waitForAnswer(page, HOST_SENT);
  await waitIdle(page);
  await page.waitForFunction(() => document.querySelector('lectern-chat').shadowRoot.querySelectorAll('li.message.assistant')[2]?.querySelector('[part~="sources"]'));
  shown = await shownSources(page);
  assert.deepEqual(shown[2].labels, ['p. 2–3']);
  assert.equal(shown[2].notFound, null);

  await chatOf(page).assistant.nth(1).locator('[part~="not-found"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'chat-sources');
  const live = shown;

  // A reload: a new Lectern on the same database; the history shows the same sources.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  await page.evaluate(async (id) => {
    const chat = document.querySelector('lectern-chat');
    chat.conversationId = id;
    await chat.ready;
    window.__sourceEvents = [];
    document.addEventListener('lectern-source', (event) => window.__sourceEvents.push(event.detail));
  }, conversationId);
  const again = await shownSources(page);
  assert.deepEqual(again, live);
  const stores = await storedSources(page, conversationId);
  assert.deepEqual(again.map((a) => a.labels), stores.map((s) => s.sources.map(label)));
  const first = chatOf(page).assistant.first().locator('[part~="source"]').nth(0);
  await first.locator('button[aria-expanded]').click();
  assert.equal(await first.locator('blockquote').textContent(), stored.sources[0].text);
  await first.getByRole('button', { name: 'Go to p. 1' }).click();
  assert.deepEqual(await page.evaluate(() => window.__sourceEvents), [{ bookId, startPage: 1, endPage: 1, via: 'search_book', text: stored.sources[0].text }]);
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('each sentence of an answer is shown checked: its citation a link to its passage with the sentence, an invented one marked "not in the book"', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const { bookId, conversationId } = await openBookConversation(page);
  // The system message numbers its passages: [1] is the reader's pages (2–3).
  await chat.script([{ text: 'The keeper mended his nets by the lighthouse [1]. He won the Fields Medal in Stockholm [1].' }]);
  await ask(page, 'What did the keeper do?');
  await page.waitForFunction(() => document.querySelector('lectern-chat').shadowRoot.querySelectorAll('li.message.assistant [part~="sentence"]').length === 2, null, { timeout: 15000 });
  await waitIdle(page);
  const sentences = await page.evaluate(() =>
    [...document.querySelector('lectern-chat').shadowRoot.querySelectorAll('li.message.assistant [part~="sentence"]')].map((s) => ({
      part: s.getAttribute('part'),
      cites: [...s.querySelectorAll('[part~="cite"]')].map((b) => b.textContent),
      mark: s.querySelector('[part~="not-in-book"]')?.textContent ?? null,
      visible: s.querySelector('[part~="not-in-book"]')?.checkVisibility() ?? null,
    })),
  );
  assert.deepEqual(sentences, [
    { part: 'sentence', cites: ['p. 2–3'], mark: null, visible: null },
    { part: 'sentence unsupported', cites: ['p. 2–3'], mark: 'not in the book', visible: true },
  ]);
  const body = await chatOf(page).assistant.last().locator('.body').textContent();
  assert.doesNotMatch(body, /\[1\]/, 'citations are links, not brackets');
  const [stored] = await storedSources(page, conversationId);
  assert.deepEqual(stored.sourceCheck.sentences.map((s) => [s.passages, s.supported]), [[[0], true], [[0], false]]);
  assert.equal(stored.sourceCheck.grounded, false);
  await chatOf(page).assistant.last().locator('[part~="cite"]').first().click();
  const [event] = await page.evaluate(() => window.__sourceEvents);
  assert.deepEqual(event.detail, { bookId, startPage: 2, endPage: 3, via: 'readerPage', text: stored.sources[0].text, sentence: 'The keeper mended his nets by the lighthouse.' });
  await screenshot(page, 'chat-sentences');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});
