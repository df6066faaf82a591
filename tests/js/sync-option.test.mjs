// Lectern.open's `sync` option: the instance follows the user's synced document with nothing else
// for the host to call. Two browser contexts (separate storage) as two devices and the real sync
// server (scripts/sync-server.mjs) on 127.0.0.1: a conversation on one is stored on the other, with
// a `synced` event; a page set with `setCurrentPage` turns the other's book; a setting the site
// syncs arrives (a secret's name is refused); `syncStatus` events tell the connection. A book
// shared with its bundle's URL is imported on the other device, at the document's page; a bundle of
// another book is not kept. A bad `sync` is a ConfigError, and a page without it never loads the
// sync module. Skips without the server's packages (npm ci).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { demoToken, skip, syncServerAndBrowser } from './sync/server.mjs';

const USER = 'reader-option';
const state = syncServerAndBrowser(USER);

/** A book of six synthetic pages (`pageChars` 2,000), the same on every device. */
const BOOK_TEXT = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1}: Syme walked along the embankment and thought of Gregory.`.padEnd(199, '.')).join('\n');

/** Opens this page's Lectern with `sync` (as device `name`, of `user`), `window.lectern`; its events in `window.events`. */
async function openSynced(page, name, user = USER, token = state.token) {
  await page.evaluate(
    async ({ url, user, token, name }) => {
      const { default: init, Lectern } = await import('/pkg/lectern.js');
      await init();
      window.events = [];
      const call = async (request) => {
        const last = request.messages.at(-1);
        const message = { role: 'assistant', content: `${name} heard: ${last.content}` };
        return { id: 'x', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] };
      };
      window.lectern = await Lectern.open({
        dbName: 'option',
        provider: { kind: 'custom', model: 'echo', stream: false, call },
        sync: { url, user, token, device: name },
        onEvent: (event) => window.events.push(event),
      });
    },
    { url: `ws://127.0.0.1:${state.port}`, user, token, name },
  );
}

/** A device: a page of its own browser context. */
async function device(name) {
  const context = await state.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${state.site.url}tests/js/sync/page.html`);
  return { context, page, name };
}

/** Waits until `check()` (run in `d`'s page) is truthy, and returns it. */
async function until(d, check, arg, what) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await d.page.evaluate(check, arg);
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`${d.name}: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a Lectern opened with sync follows the document: conversations, pages and events', { skip }, async () => {
  const laptop = await device('laptop');
  const phone = await device('phone');
  await openSynced(laptop.page, 'laptop');
  await openSynced(phone.page, 'phone');
  for (const d of [laptop, phone]) {
    assert.equal(await d.page.evaluate(() => typeof window.lectern.sync.settled), 'function', 'lectern.sync is the follower');
    await until(d, () => window.events.some((e) => e.type === 'syncStatus' && e.status === 'online'), null, 'no syncStatus online event');
    await d.page.evaluate((text) => window.lectern.addBook({ id: 'thursday', title: 'Thursday', text }), BOOK_TEXT);
  }

  const id = await laptop.page.evaluate(async () => {
    const { id } = await window.lectern.createConversation({ title: 'Thursday' });
    await window.lectern.send(id, 'Who is Syme?');
    return id;
  });
  await until(phone, (id) => window.events.some((e) => e.type === 'synced' && e.conversationId === id), id, 'no synced event for the conversation');
  const messages = await until(
    phone,
    async (id) => {
      const conversations = await window.lectern.conversations();
      if (!conversations.some((c) => c.id === id)) return null;
      const { messages } = await window.lectern.exportConversation(id);
      return messages.length === 2 ? messages.map((m) => m.content) : null;
    },
    id,
    'the laptop\'s turn is not stored',
  );
  assert.deepEqual(messages, ['Who is Syme?', 'laptop heard: Who is Syme?']);

  // A page turned with the plain setCurrentPage reaches the other device's reader.
  await laptop.page.evaluate(() => window.lectern.setCurrentPage('thursday', 4));
  await until(phone, async () => (await window.lectern.books()).find((b) => b.id === 'thursday').currentPage === 4, null, 'the page did not follow');
  const pageEvent = await phone.page.evaluate(() => window.events.find((e) => e.type === 'synced' && e.bookId));
  assert.deepEqual({ ...pageEvent }, { type: 'synced', bookId: 'thursday', page: 4 });
  // The page set here from the document is not written back: the laptop's position stays the laptop's.
  const position = await phone.page.evaluate(() => window.lectern.sync.client.positions().thursday);
  assert.equal(position.device, 'laptop');

  // A setting the site syncs reaches the other device, with a synced event; a secret never goes in.
  const refused = await laptop.page.evaluate(() => {
    window.lectern.sync.client.setSetting('reader.fontSize', 18);
    try {
      window.lectern.sync.client.setSetting('openaiApiKey', 'sk-…');
      return 'written';
    } catch (error) {
      return error.name;
    }
  });
  assert.equal(refused, 'TypeError');
  const setting = await until(phone, () => window.events.find((e) => e.type === 'synced' && e.setting), null, 'no synced event for the setting');
  assert.deepEqual({ ...setting }, { type: 'synced', setting: 'reader.fontSize', value: 18 });
  assert.deepEqual(await phone.page.evaluate(() => window.lectern.sync.client.settings()), { 'reader.fontSize': 18 });

  // Closing the instance closes its follower.
  await phone.page.evaluate(() => window.lectern.close());
  assert.equal(await phone.page.evaluate(() => window.lectern.sync === undefined && window.events.at(-1)?.status), 'offline');
  await laptop.context.close();
  await phone.context.close();
});

/** Serves `bytes` at `/<name>` on 127.0.0.1 to any origin: where a host keeps its books' bundles. */
async function bundleServer(name, bytes) {
  const server = createServer((request, response) => {
    const found = request.url === `/${name}`;
    response.writeHead(found ? 200 : 404, { 'access-control-allow-origin': '*' });
    response.end(found ? bytes : undefined);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/${name}`, close: () => new Promise((r) => server.close(r)) };
}

test('a book shared with its bundle URL is imported on another device, at the document\'s page', { skip }, async () => {
  const user = 'reader-books';
  const token = await demoToken(state.port, user);
  const laptop = await device('laptop');
  const phone = await device('phone');
  await openSynced(laptop.page, 'laptop', user, token);
  await openSynced(phone.page, 'phone', user, token);
  // The laptop's book at page 3, exported (the bundle keeps page 3), then read on to page 5.
  const bundle = await laptop.page.evaluate(async (text) => {
    await window.lectern.addBook({ id: 'thursday', title: 'Thursday', author: 'Chesterton', text });
    await window.lectern.setCurrentPage('thursday', 3);
    return Array.from(await window.lectern.exportBook('thursday'));
  }, BOOK_TEXT);
  const host = await bundleServer('thursday.lectern', Buffer.from(bundle));
  try {
    await laptop.page.evaluate(async (url) => {
      await window.lectern.setCurrentPage('thursday', 5);
      await window.lectern.sync.shareBook('thursday', url);
      // A record naming another book's bundle, as a mistaken (or hostile) device could share.
      window.lectern.sync.client.shareBook({ id: 'not-thursday', title: 'Sunday', bundleUrl: url });
      const refused = [];
      for (const bundleUrl of ['javascript:alert(1)', 'ftp://x/y', '']) {
        try {
          window.lectern.sync.client.shareBook({ id: 'bad', title: 'Bad', bundleUrl });
        } catch (error) {
          refused.push(error.name);
        }
      }
      if (refused.join() !== 'TypeError,TypeError,TypeError') throw new Error(`refused: ${refused}`);
    }, host.url);
    await until(phone, () => window.events.some((e) => e.type === 'synced' && e.sharedBookId === 'thursday'), null, 'no synced event for the shared book');
    const shared = await until(phone, async () => {
      const books = await window.lectern.sync.sharedBooks();
      return books.length === 2 ? books.map(({ id, title, author, inLibrary }) => ({ id, title, author, inLibrary })) : null;
    }, null, 'the shared books did not arrive');
    assert.deepEqual(shared.sort((a, b) => a.id.localeCompare(b.id)), [
      { id: 'not-thursday', title: 'Sunday', author: undefined, inLibrary: false },
      { id: 'thursday', title: 'Thursday', author: 'Chesterton', inLibrary: false },
    ]);

    const mismatch = await phone.page.evaluate(() => window.lectern.sync.importSharedBook('not-thursday').then(() => 'imported', (e) => e.name));
    assert.equal(mismatch, 'SyncError');
    assert.deepEqual(await phone.page.evaluate(async () => (await window.lectern.books()).map((b) => b.id)), [], 'nothing kept of a bundle of another book');

    const book = await phone.page.evaluate(() => window.lectern.sync.importSharedBook('thursday'));
    assert.equal(book.id, 'thursday');
    assert.equal(book.currentPage, 5, 'the document\'s page, not the bundle\'s');
    const found = await phone.page.evaluate(async () => (await window.lectern.search('Gregory', { bookIds: ['thursday'] })).length);
    assert.ok(found > 0, 'the imported book is searched');
    const missing = await phone.page.evaluate(() => window.lectern.sync.importSharedBook('nobody').then(() => 'imported', (e) => e.name));
    assert.equal(missing, 'NotFoundError');
  } finally {
    await host.close();
    await laptop.context.close();
    await phone.context.close();
  }
});

test('a bad sync option is a ConfigError; without it no sync module loads', { skip }, async () => {
  const d = await device('checker');
  const errors = await d.page.evaluate(async (url) => {
    const { default: init, Lectern } = await import('/pkg/lectern.js');
    await init();
    const provider = { kind: 'custom', model: 'echo', stream: false, call: async () => ({ choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }) };
    const bad = [
      'ws://x',
      { url: 'http://127.0.0.1:1', user: 'u', token: 't' },
      { url, user: '', token: 't' },
      { url, user: 'u' },
      { url, user: 'u', token: 't', password: 'p' },
    ];
    const errors = [];
    for (const sync of bad) {
      errors.push(await Lectern.open({ dbName: 'bad-sync', provider, sync }).then(() => 'opened', (e) => `${e.name}: ${e.message}`));
    }
    const plain = await Lectern.open({ dbName: 'plain', provider });
    const { id } = await plain.createConversation();
    await plain.send(id, 'hello');
    errors.push(plain.sync === undefined ? 'no follower' : 'a follower');
    errors.push(performance.getEntriesByType('resource').filter((r) => r.name.includes('lectern_sync')).length);
    return errors;
  }, `ws://127.0.0.1:${state.port}`);
  for (const error of errors.slice(0, 5)) assert.match(error, /^ConfigError: .*sync/, error);
  assert.deepEqual(errors.slice(5), ['no follower', 0]);
  await d.context.close();
});
