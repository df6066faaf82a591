// Approval cards in <lectern-chat>: edit with bad JSON and with arguments the schema
// refuses (shown inline, card kept), then run the edited version once; reject with a
// reason; a card that survives a reload and is decided once; an approved turn's text
// streams into the chat (it comes through lectern.subscribe).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAndChromium } from './browser.mjs';
import { ask, chatOf, openChat, screenshot, waitForAnswer } from './chat-support.mjs';

const running = demoAndChromium({ chunkDelayMs: 5 });

const STREAMED = `Saved your note, streamed ${Array.from({ length: 20 }, (_, i) => `w${i}`).join(' ')}.`;

const notes = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('lectern-chat-notes') ?? '[]'));

test('edit: bad JSON and schema-invalid arguments are shown inline; the edited call runs once', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await chat.script([
    { toolCalls: [{ id: 'call_note', name: 'save_note', arguments: { title: 'Syme', text: 'a poet' } }] },
    { text: STREAMED, chunkDelayMs: 20 },
  ]);
  const ui = chatOf(page);
  await ask(page, 'Note that Syme is a poet');
  await ui.approvals.first().waitFor();
  const card = ui.approvals.first();
  assert.match(await card.locator('textarea.arguments').inputValue(), /"a poet"/);
  assert.equal(await ui.status.textContent(), 'Needs your approval: save_note');
  assert.equal(await page.evaluate(() => document.querySelector('lectern-chat').shadowRoot.activeElement?.className), 'approval-card', 'the card takes focus');
  assert.deepEqual(await notes(page), [], 'nothing ran yet');
  // A readable summary first: what the tool does, the arguments as labelled fields.
  assert.equal(await card.locator('.description').textContent(), "save_note: Saves a note in the reader's notebook");
  assert.deepEqual(await card.locator('dl.fields dt').allTextContents(), ['title', 'text']);
  assert.deepEqual(await card.locator('dl.fields dd').allTextContents(), ['Syme', 'a poet']);
  assert.equal(await card.locator('textarea.arguments').isVisible(), false, 'the raw JSON is one click away');
  await card.locator('details.raw summary').click();

  await card.locator('textarea.arguments').fill('{ "title": "Syme", ');
  await card.locator('button.edit').click();
  assert.match(await card.locator('.problem').textContent(), /^Not valid JSON/);

  await card.locator('textarea.arguments').fill(JSON.stringify({ title: 'Syme', text: 42 }));
  await card.locator('button.edit').click();
  await page.waitForFunction(() => /InvalidArgumentsError/.test(document.querySelector('lectern-chat').shadowRoot.querySelector('.approval-card .problem').textContent));
  assert.equal(await ui.approvals.count(), 1, 'the card stays');
  assert.deepEqual(await notes(page), []);
  await screenshot(page, 'chat-approval-invalid');

  await card.locator('textarea.arguments').fill(JSON.stringify({ title: 'Syme', text: 'a poet and a detective' }));
  await page.evaluate(() => {
    const log = document.querySelector('lectern-chat').shadowRoot.querySelector('[role="log"]');
    window.__lengths = [];
    new MutationObserver(() => {
      const items = log.querySelectorAll('li.message.assistant');
      window.__lengths.push(items[items.length - 1]?.querySelector('.body').textContent.length ?? 0);
    }).observe(log, { childList: true, subtree: true, characterData: true });
  });
  await card.locator('button.edit').click();
  await waitForAnswer(page, STREAMED);
  const lengths = [...new Set(await page.evaluate(() => window.__lengths))].filter((n) => n > 0 && n < STREAMED.length);
  assert.ok(lengths.length >= 3, `the approved turn's answer streams in (lectern.subscribe), saw ${lengths}`);
  assert.equal(await ui.approvals.count(), 0);
  assert.deepEqual((await notes(page)).map((n) => [n.title, n.text]), [['Syme', 'a poet and a detective']], 'the edited note, saved once');
  const requests = await chat.requests();
  const call = requests.at(-1).body.messages.find((m) => m.tool_calls)?.tool_calls[0];
  assert.deepEqual(JSON.parse(call.function.arguments), { title: 'Syme', text: 'a poet and a detective' });
  assert.match(await ui.toolCards.first().locator('summary').textContent(), /save_note — done/);
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('reject with a reason: the model reads it, nothing runs', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await chat.script([
    { toolCalls: [{ id: 'call_r', name: 'save_note', arguments: { title: 'x', text: 'y' } }] },
    { text: 'All right, I will not save it.' },
  ]);
  const ui = chatOf(page);
  await ask(page, 'Save x');
  const card = ui.approvals.first();
  await card.waitFor();
  await card.locator('input.reason').fill('not this one');
  await card.locator('button.reject').click();
  await waitForAnswer(page, 'All right, I will not save it.');
  assert.deepEqual(await notes(page), []);
  const requests = await chat.requests();
  const toolMessage = requests.at(-1).body.messages.find((m) => m.role === 'tool');
  assert.match(toolMessage.content, /not this one/);
  assert.match(await ui.toolCards.first().locator('summary').textContent(), /rejected/);
  await chat.close();
});

test('a pending approval comes back after a reload and is decided once', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await chat.script([
    { toolCalls: [{ id: 'call_p', name: 'save_note', arguments: { title: 'Gregory', text: 'an anarchist' } }] },
    { text: 'Saved.' },
  ]);
  const ui = chatOf(page);
  await ask(page, 'Note Gregory');
  await ui.approvals.first().waitFor();

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  await ui.approvals.first().waitFor();
  assert.equal(await ui.approvals.count(), 1);
  assert.match(await ui.approvals.first().locator('textarea.arguments').inputValue(), /an anarchist/);
  await screenshot(page, 'chat-approval-after-reload');
  await ui.approvals.first().locator('button.approve').click();
  await waitForAnswer(page, 'Saved.');
  assert.deepEqual((await notes(page)).map((n) => n.text), ['an anarchist']);

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  assert.equal(await ui.approvals.count(), 0, 'no card after the decision');
  assert.deepEqual((await notes(page)).map((n) => n.text), ['an anarchist'], 'ran once');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('always allow, the auto-approve switch and reset: a tool asks, is always allowed, asks again after reset, runs unasked with the switch on', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const long = `A long note ${'about the council of days '.repeat(12)}end.`;
  const save = (id, text) => ({ toolCalls: [{ id, name: 'save_note', arguments: { title: id, text } }] });
  await chat.script([
    save('n1', long), { text: 'Saved one.' },
    save('n2', 'two'), { text: 'Saved two.' },
    save('n3', 'three'), { text: 'Not saved.' },
    save('n4', 'four'), { text: 'Saved four.' },
  ]);
  const ui = chatOf(page);
  const root = page.locator('lectern-chat');
  const controls = root.locator('.approval-controls');
  await controls.waitFor();
  assert.equal(await root.locator('input.auto-approve').isChecked(), false);

  await ask(page, 'Save one');
  const card = ui.approvals.first();
  await card.waitFor();
  const folded = card.locator('dd details.folded');
  assert.equal(await folded.count(), 1, 'the long value is folded');
  assert.match(await folded.locator('summary').textContent(), /^A long note about the council.*… \(\d+ characters\)$/);
  await screenshot(page, 'chat-approval-summary');
  await card.locator('button.always').click();
  await waitForAnswer(page, 'Saved one.');

  await ask(page, 'Save two');
  await waitForAnswer(page, 'Saved two.');
  assert.equal(await ui.approvals.count(), 0, 'always allowed: no card');

  await root.locator('button.reset-approvals').click();
  await page.waitForFunction(() => /ask again/.test(document.querySelector('lectern-chat').shadowRoot.querySelector('[role="status"]').textContent));
  await ask(page, 'Save three');
  await ui.approvals.first().waitFor();
  await ui.approvals.first().locator('button.reject').click();
  await waitForAnswer(page, 'Not saved.');

  // The switch, by keyboard: focus it, Space turns it on.
  await root.locator('input.auto-approve').focus();
  await page.keyboard.press('Space');
  assert.equal(await root.locator('input.auto-approve').isChecked(), true);
  assert.equal(await page.evaluate(() => document.querySelector('lectern-chat').lectern.autoApprove()), true);
  await ask(page, 'Save four');
  await waitForAnswer(page, 'Saved four.');
  assert.equal(await ui.approvals.count(), 0, 'auto-approved: no card');
  assert.deepEqual((await notes(page)).map((n) => n.title), ['n1', 'n2', 'n4']);
  await screenshot(page, 'chat-approval-controls');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('a headless run that ended proposed shows a review banner; Reject with a note reviews it, and it stays reviewed', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await chat.script([
    { toolCalls: [{ id: 'call_h', name: 'save_note', arguments: { title: 'bg', text: 'from a run' } }] },
    { text: 'Saved it in the background.' },
  ]);
  await page.waitForFunction(() => document.querySelector('lectern-chat').conversationId);
  const run = await page.evaluate(async () => {
    const element = document.querySelector('lectern-chat');
    return element.lectern.runHeadless({ conversationId: element.conversationId, instruction: 'Save a note in the background' });
  });
  assert.equal(run.status, 'proposed');
  const banner = page.locator('lectern-chat').locator('li.review-banner');
  await banner.waitFor();
  assert.match(await banner.locator('.heading').textContent(), /Save a note in the background/);
  assert.equal(await banner.locator('.tools').textContent(), 'Tools it ran: save_note');
  // What it did: the run's tool call as a card, with its arguments and its result, from the run's records.
  await banner.locator('summary.run-log-heading').click();
  assert.equal(await banner.locator('summary.run-log-heading').textContent(), 'What it did: 1 tool call');
  const card = banner.locator('details.run-log details.tool-card');
  assert.equal(await card.count(), 1);
  await card.locator('summary').click();
  assert.equal(await card.getAttribute('data-tool'), 'save_note');
  assert.match(await card.locator('.status').textContent(), /done/);
  assert.match(await card.locator('pre.arguments').textContent(), /"text": "from a run"/);
  assert.match(await card.locator('.result pre').textContent(), /"saved": "bg"/);
  await screenshot(page, 'chat-review-banner');
  await banner.locator('input.note').fill('not wanted');
  await banner.locator('button.reject').click();
  await banner.waitFor({ state: 'detached' });
  const reviewed = await page.evaluate((id) => document.querySelector('lectern-chat').lectern.run(id), run.runId);
  assert.equal(reviewed.status, 'rejected');
  assert.equal(reviewed.review.note, 'not wanted');
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  await chatOf(page).input.waitFor();
  assert.equal(await page.locator('lectern-chat').locator('li.review-banner').count(), 0, 'reviewed: no banner after a reload');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});
