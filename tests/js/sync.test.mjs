// lectern/sync in the browser: two browser contexts (separate storage) as two devices of one user,
// and the real sync server (scripts/sync-server.mjs, y-websocket's server with a room per user)
// started by the test on 127.0.0.1 with its LevelDB store. Both write; one goes offline and both
// write on; it reconnects: every message on both, in the same order, none twice. A reload opens
// the document from IndexedDB before the network; the server restarts mid-session and the
// devices reconnect by themselves; a third device joining late gets everything; a wrong token
// never connects. Skips without the server's packages (npm ci).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skip, startSyncServer, syncServerAndBrowser } from './sync/server.mjs';

const USER = 'reader-1';
const state = syncServerAndBrowser(USER);

/** A device: a page of its own browser context, its SyncClient open as `window.client`. */
async function device(name, { context, token = state.token } = {}) {
  context ??= await state.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${state.site.url}tests/js/sync/page.html`);
  await page.evaluate(
    async ({ url, user, token, name }) => {
      const { SyncClient } = await import('/pkg/lectern_sync_client.js');
      window.changes = 0;
      window.client = await SyncClient.open({ url, user, token, device: name, onChange: () => (window.changes += 1) });
    },
    { url: `ws://127.0.0.1:${state.port}`, user: USER, token, name },
  );
  return { context, page };
}

const write = (d, id, content) =>
  d.page.evaluate(({ id, content }) => window.client.appendMessage({ id, conversationId: 'c1', role: 'user', content, createdAt: Date.now() }), { id, content });
const ids = (d) => d.page.evaluate(() => window.client.messages('c1').map((m) => m.id));
const status = (d) => d.page.evaluate(() => window.client.status);
/** Waits until `d` holds `count` messages. */
const holds = (d, count) => d.page.waitForFunction((n) => window.client.messages('c1').length === n, count, { polling: 100, timeout: 15_000 });

test('two devices sync through the server: offline writes, one order, a reload, a restart, a late device', { skip }, async () => {
  const laptop = await device('laptop');
  const phone = await device('phone');
  await laptop.page.evaluate(() => window.client.putConversation({ id: 'c1', title: 'Thursday', createdAt: 1 }));
  await write(laptop, 'l0', 'first, on the laptop');
  await holds(phone, 1);
  await write(phone, 'p0', 'then on the phone');
  await holds(laptop, 2);

  // The phone goes offline; both write on.
  await phone.page.evaluate(() => window.client.disconnect());
  for (let i = 1; i <= 5; i += 1) {
    await write(laptop, `l${i}`, 'laptop, online');
    await write(phone, `p${i}`, 'phone, offline');
  }
  assert.equal((await ids(phone)).length, 7, 'the phone holds its own writes while offline');
  await phone.page.evaluate(() => window.client.connect());
  await holds(laptop, 12);
  await holds(phone, 12);
  const order = await ids(laptop);
  assert.deepEqual(await ids(phone), order, 'the same order on both');
  assert.equal(new Set(order).size, 12, 'none twice');

  // A reload opens the document from IndexedDB before the network answers.
  await phone.page.reload();
  const offlineFirst = await phone.page.evaluate(
    async ({ url, user, token }) => {
      const { SyncClient } = await import('/pkg/lectern_sync_client.js');
      window.client = await SyncClient.open({ url, user, token, device: 'phone' });
      return window.client.messages('c1').map((m) => m.id);
    },
    { url: `ws://127.0.0.1:${state.port}`, user: USER, token: state.token },
  );
  assert.deepEqual(offlineFirst, order, 'kept in IndexedDB');

  // The server restarts mid-session: the devices reconnect by themselves and write on.
  await state.server.stop();
  await laptop.page.waitForFunction(() => window.client.status !== 'online', null, { polling: 100 });
  state.server = await startSyncServer(state.port, state.data);
  await laptop.page.waitForFunction(() => window.client.status === 'online', null, { polling: 100, timeout: 15_000 });
  await phone.page.waitForFunction(() => window.client.status === 'online', null, { polling: 100, timeout: 15_000 });
  await write(laptop, 'l6', 'after the restart');
  await holds(phone, 13);

  // A third device joining late gets everything.
  const tablet = await device('tablet');
  await holds(tablet, 13);
  assert.deepEqual(await ids(tablet), await ids(laptop));
  assert.equal(await status(tablet), 'online');

  // A wrong token never connects (the server answers 401 at the upgrade) and holds nothing.
  const stranger = await device('stranger', { token: 'wrong' });
  await new Promise((r) => setTimeout(r, 1000));
  assert.notEqual(await status(stranger), 'online');
  assert.deepEqual(await ids(stranger), []);
  for (const d of [laptop, phone, tablet, stranger]) await d.context.close();
});

test('a device keeps its document as one small update a burst, folded into a snapshot every hundred and when it opens again', { skip }, async () => {
  const d = await device('keeper');
  /** What IndexedDB holds of this user's document: the snapshot's bytes and each kept update's. */
  const kept = () => d.page.evaluate(async (key) => {
    const db = await new Promise((resolve, reject) => {
      const request = indexedDB.open('lectern-sync');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const transaction = db.transaction(['documents', 'updates']);
    const read = (request) => new Promise((resolve) => (request.onsuccess = () => resolve(request.result)));
    const [snapshot, updates] = await Promise.all([
      read(transaction.objectStore('documents').get(key)),
      read(transaction.objectStore('updates').getAll(IDBKeyRange.bound([key], [key, []]))),
    ]);
    db.close();
    return { snapshot: snapshot?.byteLength ?? 0, updates: updates.map((u) => u.byteLength) };
  }, `ws://127.0.0.1:${state.port}|${USER}`);
  const before = await kept();
  // 250 bursts of one ~300-character message each, a task apart (a burst that comes while the last
  // one is being kept is kept with the next: an engine may join a few).
  const long = 'Syme walked along the embankment, thinking of anarchy and of poetry. '.repeat(5).slice(0, 300);
  await d.page.evaluate(async (long) => {
    for (let i = 0; i < 250; i += 1) {
      window.client.appendMessage({ id: `kept-${i}`, conversationId: 'kept', role: 'user', content: long, createdAt: Date.now() });
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await window.client.close();
  }, long);
  const after = await kept();
  assert.ok(after.snapshot > before.snapshot + 100 * 300, `a hundredth update folded the updates into the snapshot (${before.snapshot} -> ${after.snapshot} bytes)`);
  assert.ok(after.updates.length > 0 && after.updates.length < 100, `fewer than a hundred updates after the last fold: ${after.updates.length}`);
  const largest = Math.max(...after.updates);
  assert.ok(largest < after.snapshot / 10, `each update is a burst's, not the document (${largest} of ${after.snapshot} bytes)`);

  // Opened again: the updates are folded in, and every message is there.
  await d.page.reload();
  const messages = await d.page.evaluate(async ({ url, user, token }) => {
    const { SyncClient } = await import('/pkg/lectern_sync_client.js');
    window.client = await SyncClient.open({ url, user, token, device: 'keeper' });
    return window.client.messages('kept').length;
  }, { url: `ws://127.0.0.1:${state.port}`, user: USER, token: state.token });
  assert.equal(messages, 250);
  const reopened = await kept();
  assert.deepEqual(reopened.updates, [], 'folded at open');
  assert.ok(reopened.snapshot > after.snapshot);
  await d.page.evaluate(() => window.client.close());

  // An update that cannot be read (a disk's fault) is dropped: the document opens from its snapshot.
  await d.page.evaluate(async (key) => {
    const db = await new Promise((resolve) => (indexedDB.open('lectern-sync').onsuccess = ({ target }) => resolve(target.result)));
    const transaction = db.transaction('updates', 'readwrite');
    transaction.objectStore('updates').put(new Uint8Array([255, 1, 2, 3]).buffer, [key, 'broken']);
    await new Promise((resolve) => (transaction.oncomplete = resolve));
    db.close();
  }, `ws://127.0.0.1:${state.port}|${USER}`);
  await d.page.reload();
  const survived = await d.page.evaluate(async ({ url, user, token }) => {
    const { SyncClient } = await import('/pkg/lectern_sync_client.js');
    const client = await SyncClient.open({ url, user, token, device: 'keeper' });
    const count = client.messages('kept').length;
    await client.close();
    return count;
  }, { url: `ws://127.0.0.1:${state.port}`, user: USER, token: state.token });
  assert.equal(survived, 250);
  const afterBroken = await kept();
  assert.ok(afterBroken.updates.length <= 1, `the unreadable update folded away (${afterBroken.updates.length} left)`);
  await d.context.close();
});
