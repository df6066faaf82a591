// Failures in <lectern-chat>: a refused key gives a friendly message with Retry, and
// Retry answers without a second copy of the user's message; the API key from the
// settings panel is never written to localStorage, IndexedDB, Cache Storage or cookies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAndChromium } from './browser.mjs';
import { ask, chatOf, openChat, screenshot, transcript, waitForAnswer } from './chat-support.mjs';

const running = demoAndChromium({ chunkDelayMs: 5 });

test('401: a friendly message, lectern-error, and Retry that answers without a duplicated user message, with the send options', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await chat.script([{ fault: { status: 401, body: { error: { message: 'bad key' } } } }, { text: 'Now it works.' }]);
  await page.evaluate(() => {
    window.__errors = [];
    document.querySelector('lectern-chat').addEventListener('lectern-error', (e) => window.__errors.push(e.detail.error));
    // The host's send options go with the turn and with its Retry.
    document.querySelector('lectern-chat').addEventListener('lectern-send', (e) => Object.assign(e.detail.options, { maxOutputTokens: 55 }));
  });
  const ui = chatOf(page);
  await ask(page, 'Is my key fine?');
  await ui.errors.first().waitFor();
  assert.equal(await ui.errors.first().getAttribute('data-error'), 'AuthError');
  assert.match(await ui.errors.first().textContent(), /refused the API key\. Check it in Model settings/);
  assert.match(await ui.status.textContent(), /refused the API key/);
  assert.deepEqual(await page.evaluate(() => window.__errors.map((e) => e.name)), ['AuthError']);
  await screenshot(page, 'chat-error');

  await ui.errors.first().locator('button.retry').click();
  await waitForAnswer(page, 'Now it works.');
  assert.equal(await ui.errors.count(), 0, 'the error gives way to the answer');
  assert.deepEqual(await transcript(page), [
    ['user', 'Is my key fine?'],
    ['assistant', 'Now it works.'],
  ]);
  const stored = await page.evaluate(async () => {
    const chat = document.querySelector('lectern-chat');
    return (await chat.lectern.messages(chat.conversationId)).map((m) => [m.role, m.content]);
  });
  assert.deepEqual(stored, [
    ['user', 'Is my key fine?'],
    ['assistant', 'Now it works.'],
  ]);
  const requests = await chat.requests();
  assert.equal(requests.length, 2);
  assert.deepEqual(requests[1].body.messages.filter((m) => m.role === 'user').map((m) => m.content), ['Is my key fine?']);
  assert.deepEqual(requests.map((r) => r.body.max_tokens), [55, 55], "the lectern-send listener's options, retried too");
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('the API key from the settings panel reaches the server and no storage of the origin', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const KEY = 'sk-test-5f3a9c-never-stored';
  const ui = chatOf(page);
  const settings = ui.root.locator('details.settings');
  await settings.locator('summary').click();
  await settings.locator('input[name="apiKey"]').fill(KEY);
  const changed = page.evaluate(
    () => new Promise((ok) => document.querySelector('lectern-chat').addEventListener('lectern-settings-change', (e) => ok(e.detail), { once: true })),
  );
  await settings.locator('button[type="submit"]').click();
  const detail = await changed;
  assert.equal(detail.apiKey, KEY);
  assert.equal(detail.model, 'mock');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  await chat.script([{ text: 'Keyed answer.' }]);
  await ask(page, 'Hello with a key');
  await waitForAnswer(page, 'Keyed answer.');
  const requests = await chat.requests();
  assert.equal(requests.at(-1).headers.authorization, `Bearer ${KEY}`, 'the reopened instance uses the key');

  const found = await page.evaluate(async (key) => {
    const hits = [];
    const text = (value) => {
      if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return new TextDecoder().decode(value);
      if (value instanceof Blob) return '';
      try {
        return JSON.stringify(value, (_k, v) => (v instanceof ArrayBuffer || ArrayBuffer.isView(v) ? new TextDecoder().decode(v) : v));
      } catch {
        return String(value);
      }
    };
    for (let i = 0; i < localStorage.length; i++) if (localStorage.getItem(localStorage.key(i)).includes(key)) hits.push(`localStorage ${localStorage.key(i)}`);
    for (let i = 0; i < sessionStorage.length; i++) if (sessionStorage.getItem(sessionStorage.key(i)).includes(key)) hits.push(`sessionStorage ${sessionStorage.key(i)}`);
    if (document.cookie.includes(key)) hits.push('cookie');
    let stores = 0;
    for (const { name } of await indexedDB.databases()) {
      const db = await new Promise((ok, fail) => {
        const request = indexedDB.open(name);
        request.onsuccess = () => ok(request.result);
        request.onerror = () => fail(request.error);
      });
      for (const storeName of db.objectStoreNames) {
        stores++;
        const values = await new Promise((ok, fail) => {
          const request = db.transaction(storeName).objectStore(storeName).getAll();
          request.onsuccess = () => ok(request.result);
          request.onerror = () => fail(request.error);
        });
        for (const value of values) if (text(value).includes(key)) hits.push(`indexedDB ${name}/${storeName}`);
      }
      db.close();
    }
    for (const cacheName of await caches.keys()) {
      const cache = await caches.open(cacheName);
      for (const request of await cache.keys()) {
        if (request.url.includes(key) || (await (await cache.match(request)).text()).includes(key)) hits.push(`cache ${cacheName}`);
      }
    }
    return { hits, stores };
  }, KEY);
  assert.ok(found.stores > 3, `the scan read the databases (${found.stores} stores)`);
  assert.deepEqual(found.hits, []);
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('a failure after a tool step offers no Retry (retry answers only a trailing user message)', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await chat.script([{ toolCalls: [{ id: 'call_t', name: 'local_time', arguments: {} }] }, { fault: { status: 401 } }]);
  const ui = chatOf(page);
  await ask(page, 'What time is it?');
  await ui.errors.first().waitFor();
  await page.waitForFunction(() => !document.querySelector('lectern-chat').shadowRoot.querySelector('li.message.error button.retry'));
  assert.equal(await ui.toolCards.count(), 1);
  assert.match(await ui.errors.first().textContent(), /refused the API key/);
  await chat.close();
});

test('key-storage="session" keeps the key in sessionStorage, and nowhere that outlives the tab', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const KEY = 'sk-session-only-81c2';
  await page.evaluate(() => document.querySelector('lectern-chat').setAttribute('key-storage', 'session'));
  const settings = chatOf(page).root.locator('details.settings');
  await settings.locator('summary').click();
  await settings.locator('input[name="apiKey"]').fill(KEY);
  await settings.locator('button[type="submit"]').click();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  const where = await page.evaluate((key) => ({
    session: Object.values(sessionStorage).filter((v) => v.includes(key)).length,
    local: Object.values(localStorage).filter((v) => v.includes(key)).length,
  }), KEY);
  assert.deepEqual(where, { session: 1, local: 0 });
  await chat.close();
});

test("with the host's models the settings panel offers them as a list to pick from; without, the model is typed", async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const settings = chatOf(page).root.locator('details.settings');
  await page.evaluate(() => {
    document.querySelector('lectern-chat').models = ['mock', { id: 'mock-large', label: 'Mock, large' }];
  });
  await settings.locator('summary').click();
  const list = settings.locator('select[name="model"]');
  assert.deepEqual(await list.locator('option').allTextContents(), ['mock', 'Mock, large']);
  assert.equal(await list.inputValue(), 'mock', 'the current model stays chosen');
  assert.equal(await settings.locator('input[name="model"]').count(), 0);
  await list.selectOption('mock-large');
  await screenshot(page, 'chat-settings-models');
  const changed = page.evaluate(
    () => new Promise((ok) => document.querySelector('lectern-chat').addEventListener('lectern-settings-change', (e) => ok(e.detail), { once: true })),
  );
  await settings.locator('button[type="submit"]').click();
  assert.equal((await changed).model, 'mock-large');
  // The host does not reopen the engine: the next turn asks the picked model all the same.
  await chat.script([{ text: 'From the large one.' }]);
  await ask(page, 'Which model?');
  await waitForAnswer(page, 'From the large one.');
  assert.deepEqual((await chat.requests()).map((r) => r.body.model), ['mock-large']);
  await page.evaluate(() => {
    document.querySelector('lectern-chat').models = [];
  });
  await settings.locator('summary').click();
  assert.equal(await settings.locator('select[name="model"]').count(), 0);
  assert.equal(await settings.locator('input[name="model"]').inputValue(), 'mock-large', 'free text again, the choice kept');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});
