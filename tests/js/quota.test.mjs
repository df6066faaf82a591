// A full disk in headless Chromium: the origin's quota is lowered through the
// DevTools protocol (Storage.overrideQuotaForOrigin), then books are added and
// turns sent until one fails. The failure is a typed StorageError with reason
// 'quota', nothing of the failed write is left behind, and what was stored
// before is intact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAndChromium } from './browser.mjs';

const running = demoAndChromium({ chunkDelayMs: 0 });

/** The origin's quota in the test, in bytes. */
const QUOTA = 1_000_000;

/**
 * A page of the demo's origin with Lectern loaded as `window.lectern`, its
 * origin's quota lowered to `quota` bytes before anything is stored (Chromium
 * reads the quota when the database is first opened).
 */
async function lecternPage(dbName, quota) {
  const context = await running.browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(running.demo.url).origin, quotaSize: quota });
  // Any path of the origin will do; this one is a plain 404 text page.
  await page.goto(`${running.demo.url}blank`);
  await page.evaluate(
    async ({ dbName, baseUrl }) => {
      const { default: init, Lectern } = await import('/pkg/lectern.js');
      await init();
      window.events = [];
      window.lectern = await Lectern.open({
        dbName,
        provider: { kind: 'openai', baseUrl, model: 'mock', apiKey: 'k' },
        // Vectors too (no embedder stores none), so that none of a failed book may be left.
        embedder: { kind: 'hashed' },
        onEvent: (event) => window.events.push(event),
      });
      // Fails with the error's name, reason and message as data, so they cross to Node.
      window.attempt = async (work) => {
        try {
          return { ok: await work() };
        } catch (e) {
          return { error: { name: e.name, reason: e.reason, message: e.message } };
        }
      };
    },
    { dbName, baseUrl: `${running.demo.mockUrl}/v1` },
  );
  return { page, context };
}

/** A text of about `size` characters, different for each `seed`. */
function bookText(seed, size) {
  const words = [];
  let length = 0;
  let x = seed * 7919 + 1;
  while (length < size) {
    x = (x * 48271) % 2147483647;
    const word = `w${x.toString(36)}`;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
}

/** Every record's owner in the book stores, read straight from IndexedDB. */
async function storedOwners(page, dbName) {
  return page.evaluate(async (name) => {
    const db = await new Promise((ok, fail) => {
      const request = indexedDB.open(name);
      request.onsuccess = () => ok(request.result);
      request.onerror = () => fail(request.error);
    });
    const all = (store) =>
      new Promise((ok, fail) => {
        const request = db.transaction(store).objectStore(store).getAll();
        request.onsuccess = () => ok(request.result);
        request.onerror = () => fail(request.error);
      });
    const owners = {
      books: (await all('books')).map((b) => b.id),
      chunks: [...new Set((await all('chunks')).map((c) => c.bookId))],
      vectors: [...new Set((await all('vectors')).map((v) => v.bookId))],
      lexical: await new Promise((ok, fail) => {
        const request = db.transaction('lexicalIndexes').objectStore('lexicalIndexes').getAllKeys();
        request.onsuccess = () => ok(request.result.map(String));
        request.onerror = () => fail(request.error);
      }),
      messages: (await all('messages')).length,
    };
    db.close();
    return owners;
  }, dbName);
}

test('past the quota, addBook and send reject with reason quota and leave nothing half-written', async (t) => {
  const dbName = `quota-${Date.now()}`;
  const { page, context } = await lecternPage(dbName, QUOTA);

  // What is stored before the disk fills up.
  const early = await page.evaluate(async () => {
    const conversation = await lectern.createConversation({ title: 'Before' });
    const reply = await lectern.send(conversation.id, 'Hello before the disk filled up');
    const book = await lectern.addBook({ title: 'Early', text: 'A small first book. '.repeat(50) });
    return { conversationId: conversation.id, reply: reply.text, bookId: book.id };
  });
  assert.equal(early.reply, 'Mock reply to: Hello before the disk filled up');


  // Books of about 120 KB of text (plus their vectors) until one does not fit.
  const added = [];
  let failure;
  for (let i = 1; i <= 40 && !failure; i++) {
    const title = `Filler ${i}`;
    const outcome = await page.evaluate(
      ({ title, text }) => attempt(() => lectern.addBook({ title, text }).then((b) => b.id)),
      { title, text: bookText(i, 120_000) },
    );
    if (outcome.error) failure = { title, ...outcome.error };
    else added.push(outcome.ok);
  }
  assert.ok(failure, `the quota of ${QUOTA} bytes was never reached after ${added.length} books`);
  assert.equal(failure.name, 'StorageError', failure.message);
  assert.equal(failure.reason, 'quota', failure.message);

  const books = await page.evaluate(() => lectern.books());
  assert.deepEqual(
    books.map((b) => b.title),
    ['Early', ...added.map((_, i) => `Filler ${i + 1}`)],
    'the failed book is not listed',
  );
  const owners = await storedOwners(page, dbName);
  const kept = [early.bookId, ...added].sort();
  assert.deepEqual([...owners.books].sort(), kept);
  assert.deepEqual([...owners.chunks].sort(), kept, 'no chunks of the failed book');
  // Vectors come after addBook resolved (or not at all past the quota): only kept books have any.
  assert.ok([...owners.vectors].every((id) => kept.includes(id)), 'no vectors of the failed book');
  assert.deepEqual([...owners.lexical].sort(), kept, 'no lexical index of the failed book');
  const hits = await page.evaluate((id) => lectern.search('small first book', { bookIds: [id], k: 1 }), early.bookId);
  assert.equal(hits[0].bookId, early.bookId, 'the early book is still searchable');

  // Turns with long messages until one does not fit.
  const before = await page.evaluate((id) => lectern.messages(id), early.conversationId);
  const finishedBefore = await page.evaluate(() => events.filter((e) => e.type === 'finish').length);
  let sent = 0;
  let turnFailure;
  for (let i = 1; i <= 20 && !turnFailure; i++) {
    const outcome = await page.evaluate(
      ({ id, text }) => attempt(() => lectern.send(id, text).then((r) => r.text.length)),
      { id: early.conversationId, text: bookText(100 + i, 60_000) },
    );
    if (outcome.error) turnFailure = outcome.error;
    else sent += 1;
  }
  assert.ok(turnFailure, 'a turn eventually does not fit');
  assert.equal(turnFailure.name, 'StorageError', turnFailure.message);
  assert.equal(turnFailure.reason, 'quota', turnFailure.message);
  const messages = await page.evaluate((id) => lectern.messages(id), early.conversationId);
  const finished = await page.evaluate(() => events.filter((e) => e.type === 'finish').length);
  assert.equal(finished - finishedBefore, sent, 'no finish for the failed turn');
  // Each completed turn stored two messages; the failed one at most its user message.
  const extra = messages.length - before.length - 2 * sent;
  assert.ok(extra === 0 || (extra === 1 && messages.at(-1).role === 'user'), `${extra} extra messages`);
  assert.deepEqual(messages.slice(0, before.length), before, 'earlier messages are intact');
  assert.deepEqual(
    messages.map((m) => m.seq),
    messages.map((_, i) => i),
    'no gap in the stored sequence',
  );
  assert.equal((await storedOwners(page, dbName)).messages, messages.length);
  t.diagnostic(`quota ${QUOTA} B: ${added.length} books and ${sent} turns fitted; the failed turn left ${extra} message`);

  // storageEstimate is the page's own view (DevTools' override does not show in navigator.storage).
  const [estimate, browserEstimate, persisted] = await page.evaluate(async () => [
    await lectern.storageEstimate(),
    await navigator.storage.estimate(),
    await navigator.storage.persisted(),
  ]);
  assert.deepEqual(estimate, { usage: browserEstimate.usage, quota: browserEstimate.quota, persisted });
  assert.ok(estimate.usage > 0 && estimate.quota > 0, JSON.stringify(estimate));
  const granted = await page.evaluate(() => lectern.persist());
  assert.equal(typeof granted, 'boolean');
  assert.equal((await page.evaluate(() => lectern.storageEstimate())).persisted, granted);

  await context.close();
});
