// Helpers of the chat-*.test.mjs files: www/chat.html in headless Chromium against
// one scripted session of the mock model server, and locators into <lectern-chat>
// (Playwright's CSS locators pierce its open shadow root).
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { ARTIFACTS } from './browser.mjs';

/** A fresh context (own storage, no service worker) on chat.html (or `page`) with its own mock session. */
export async function openChat(running, { session = `s${randomUUID().slice(0, 8)}`, query = '', page: file = 'chat.html' } = {}) {
  const context = await running.browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) && problems.push(`console: ${m.text()}`));
  await page.goto(`${running.demo.url}${file}?mock-session=${session}${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  const mock = `${running.demo.mockUrl}/__mock/${session}`;
  return {
    page,
    context,
    session,
    problems,
    /** Queues model turns on this session. */
    script: (turns) => fetch(`${mock}/script`, { method: 'POST', body: JSON.stringify({ turns }) }).then((r) => assert.equal(r.status, 200)),
    /** Every request the mock got on this session. */
    requests: () => fetch(`${mock}/requests`).then((r) => r.json()),
    close: () => context.close(),
  };
}

/** Locators into the chat. */
export function chatOf(page) {
  const root = page.locator('lectern-chat');
  return {
    root,
    input: root.locator('#input'),
    send: root.locator('button.send'),
    stop: root.locator('button.stop'),
    status: root.locator('[role="status"]'),
    messages: root.locator('li.message'),
    assistant: root.locator('li.message.assistant'),
    user: root.locator('li.message.user'),
    toolCards: root.locator('details.tool-card'),
    approvals: root.locator('li.approval-card'),
    errors: root.locator('li.message.error'),
    usage: root.locator('li.usage'),
  };
}

/** Types `text` and presses Enter. */
export async function ask(page, text) {
  const chat = chatOf(page);
  await chat.input.fill(text);
  await chat.input.press('Enter');
}

/**
 * Types `text`, presses Enter, and waits until the turn it sent has ended. On a chat whose engine
 * loads on its first use, the widget is not `busy` while the engine starts (it is `starting`, then
 * neither while it reads its conversation), so `waitIdle` alone can pass before the turn begins: the
 * user's message is appended in the same task that makes the widget `busy`, so once it is there,
 * not `busy` means done.
 */
export async function askAndWait(page, text, timeout = 15000) {
  const before = await chatOf(page).user.count();
  await ask(page, text);
  await page.waitForFunction(
    (count) => {
      const chat = document.querySelector('lectern-chat');
      return chat.shadowRoot.querySelectorAll('li.message.user').length > count && !chat.hasAttribute('busy');
    },
    before,
    { timeout },
  );
}

/** Waits until the last assistant message is done streaming with `text`. */
export async function waitForAnswer(page, text, timeout = 15000) {
  await page.waitForFunction(
    (expected) => {
      const items = document.querySelector('lectern-chat').shadowRoot.querySelectorAll('li.message.assistant');
      const last = items[items.length - 1];
      return last && last.getAttribute('aria-busy') !== 'true' && last.querySelector('.body').textContent === expected;
    },
    text,
    { timeout },
  );
}

/** Waits until no turn runs. */
export async function waitIdle(page, timeout = 15000) {
  await page.waitForFunction(() => !document.querySelector('lectern-chat').hasAttribute('busy'), null, { timeout });
}

/** Saves a screenshot to .test-artifacts/<name>.png. */
export async function screenshot(page, name) {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}

/** The texts of the transcript's items, as [role, text] pairs (user and assistant only). */
export function transcript(page) {
  return page.evaluate(() =>
    [...document.querySelector('lectern-chat').shadowRoot.querySelectorAll('li.message.user, li.message.assistant')].map((li) => [
      li.dataset.role,
      li.dataset.role === 'user' ? li.textContent : li.querySelector('.body').textContent,
    ]),
  );
}
