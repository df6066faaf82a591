// <lectern-chat> with a lazily loaded engine (www/chat-lazy.html): the chat is
// painted and focusable before any wasm is requested; the engine loads when
// the input is first used, and the first send waits for it, showing that it starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAndChromium } from './browser.mjs';
import { ask, chatOf, openChat, screenshot, waitForAnswer } from './chat-support.mjs';

const running = demoAndChromium();

/** Every resource the page fetched, in order, with when it started (ms since navigation). */
const resources = (page) =>
  page.evaluate(() => performance.getEntriesByType('resource').map((r) => ({ name: new URL(r.name).pathname, start: r.startTime })));

test('the chat paints before any wasm is requested, and its first send loads the engine', async () => {
  const chat = await openChat(running, { page: 'chat-lazy.html' });
  const { page } = chat;
  const ui = chatOf(page);
  // Painted and usable with no engine: visible, focusable, no .wasm fetched, nothing started.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const painted = await page.evaluate(() => performance.now());
  assert.ok(await ui.input.isVisible());
  assert.ok(await ui.send.isVisible());
  const before = await resources(page);
  assert.ok(before.some((r) => r.name === '/pkg/chat/index.js'), 'the widget loaded');
  assert.deepEqual(before.filter((r) => /\.wasm$|\/pkg\/lectern\.js$/.test(r.name)), [], 'no engine before use');
  await screenshot(page, 'chat-lazy-before-use');

  await chat.script([{ text: 'Syme is a poet.' }]);
  await ask(page, 'Who is Syme?');
  await waitForAnswer(page, 'Syme is a poet.');
  const after = await resources(page);
  const wasm = after.find((r) => r.name === '/pkg/lectern_bg.wasm');
  assert.ok(wasm, 'the engine loaded on first use');
  assert.ok(wasm.start > painted, `wasm requested at ${wasm.start} ms, after the first paint at ${painted} ms`);
  // What the widget calls to load a conversation and show its totals is in the page's module:
  // none of the chunks split off it (split_*.wasm, chunk_*.wasm) before the first answer.
  const chunks = after.filter((r) => /\/(split|chunk)_[^/]*\.wasm$/.test(r.name)).map((r) => r.name);
  assert.deepEqual(chunks, [], 'no chunk fetched for the first answer');
  assert.equal(await ui.user.count(), 1);
  assert.deepEqual(chat.problems, []);
  await screenshot(page, 'chat-lazy-answered');
  await chat.close();
});

test('the first send shows that the engine starts and sends once it has', async () => {
  const chat = await openChat(running, { page: 'chat-lazy.html' });
  const { page } = chat;
  // Hold the engine's module back so the starting state can be seen.
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route('**/pkg/lectern_bg.wasm', async (route) => {
    await held;
    await route.continue();
  });
  await chat.script([{ text: 'Started.' }]);
  const ui = chatOf(page);
  await ui.input.fill('Hello');
  await ui.input.press('Enter');
  await page.waitForFunction(() => document.querySelector('lectern-chat').hasAttribute('starting'));
  assert.equal(await ui.send.textContent(), 'Starting…');
  assert.ok(await ui.send.isDisabled());
  assert.match(await ui.status.textContent(), /Starting/);
  release();
  await waitForAnswer(page, 'Started.');
  assert.equal(await ui.send.textContent(), 'Send');
  assert.equal(await ui.user.count(), 1, 'the message was sent once');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});
