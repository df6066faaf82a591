// <lectern-chat> without a mouse: ask a question and decide an approval with the
// keyboard alone (this file never clicks), Escape stops a turn, and @-mentions
// autocomplete as an APG combobox and reach the engine with send's `mentions`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { demoAndChromium } from './browser.mjs';
import { chatOf, openChat, screenshot, waitForAnswer, waitIdle } from './chat-support.mjs';

const running = demoAndChromium({ chunkDelayMs: 5 });

const active = (page) =>
  page.evaluate(() => {
    const element = document.querySelector('lectern-chat').shadowRoot.activeElement;
    return element ? `${element.tagName.toLowerCase()}.${element.className}` : null;
  });

test('this file drives the chat without clicks', () => {
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  assert.equal(source.split('.cli' + 'ck(').length - 1, 0);
});

test('keyboard only: ask, then approve a tool call from its card', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await chat.script([{ toolCalls: [{ id: 'call_k', name: 'save_note', arguments: { title: 'k', text: 'keyboard' } }] }, { text: 'Saved by keyboard.' }]);
  await page.evaluate(() => document.querySelector('lectern-chat').focus());
  assert.equal(await active(page), 'textarea.');
  await page.keyboard.type('Save a note');
  await page.keyboard.down('Shift');
  await page.keyboard.press('Enter');
  await page.keyboard.up('Shift');
  await page.keyboard.type('please');
  assert.equal(await chatOf(page).input.inputValue(), 'Save a note\nplease', 'Shift+Enter is a new line');
  await page.keyboard.press('Enter');
  await chatOf(page).approvals.first().waitFor();
  assert.equal(await active(page), 'li.approval-card', 'the card has focus, not its buttons');
  // Tab through the card: the raw JSON's toggle, reason, then Approve.
  await page.keyboard.press('Tab');
  assert.equal(await active(page), 'summary.');
  await page.keyboard.press('Tab');
  assert.equal(await active(page), 'input.reason');
  await page.keyboard.press('Tab');
  assert.equal(await active(page), 'button.approve primary');
  await page.keyboard.press('Enter');
  await waitForAnswer(page, 'Saved by keyboard.');
  assert.equal(await active(page), 'textarea.', 'focus back in the input after the decision');
  const notes = await page.evaluate(() => JSON.parse(localStorage.getItem('lectern-chat-notes') ?? '[]'));
  assert.deepEqual(notes.map((n) => n.text), ['keyboard']);
  await screenshot(page, 'chat-keyboard');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('Escape stops a running answer', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await chat.script([{ text: Array.from({ length: 60 }, (_, i) => `w${i}`).join(' '), chunkDelayMs: 60 }]);
  await page.evaluate(() => document.querySelector('lectern-chat').focus());
  await page.keyboard.type('Go on and on');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('lectern-chat').shadowRoot.querySelector('li.message.assistant .body')?.textContent.length > 5);
  await page.keyboard.press('Escape');
  await waitIdle(page);
  assert.equal(await chatOf(page).status.textContent(), 'Stopped');
  assert.match(await chatOf(page).assistant.last().getAttribute('class'), /interrupted/);
  await chat.close();
});

test('@-mentions: an APG combobox whose pick reaches send as a mention', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const ui = chatOf(page);
  await page.evaluate(() => document.querySelector('lectern-chat').focus());
  await page.keyboard.type('Tell me about @sy');
  assert.equal(await ui.input.getAttribute('role'), 'combobox');
  assert.equal(await ui.input.getAttribute('aria-expanded'), 'true');
  const listId = await ui.input.getAttribute('aria-controls');
  const options = ui.root.locator(`#${listId} [role="option"]`);
  assert.deepEqual(await options.allTextContents(), ['Gabriel Syme']);
  assert.equal(await ui.input.getAttribute('aria-activedescendant'), await options.first().getAttribute('id'));
  await screenshot(page, 'chat-mentions');
  await page.keyboard.press('Enter');
  assert.equal(await ui.input.inputValue(), 'Tell me about @Gabriel Syme ');
  assert.equal(await ui.input.getAttribute('aria-expanded'), 'false');
  await page.keyboard.type('and @read');
  await page.keyboard.press('Escape');
  assert.equal(await ui.input.getAttribute('aria-expanded'), 'false', 'Escape closes the list');
  assert.equal(await ui.stop.isHidden(), true, 'and stops nothing');
  await page.keyboard.press('Enter');
  await waitForAnswer(page, 'Mock reply to: Tell me about @Gabriel Syme and @read');
  const system = (await chat.requests()).at(-1).body.messages[0].content;
  assert.match(system, /Gabriel Syme is the poet who joins the police/, 'the picked mention was resolved into the turn');
  assert.doesNotMatch(system, /Reading list/, 'an unpicked one was not');
  await chat.close();
});
