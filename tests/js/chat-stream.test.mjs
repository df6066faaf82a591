// <lectern-chat> on www/chat.html: a streamed answer rendered as Markdown, one
// announcer line per turn, aria-busy true → false, usage readouts, the answer
// still there after a reload; Stop keeps the partial answer; a tool card; a turn cut
// off by a reload, continued.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAndChromium } from './browser.mjs';
import { ask, chatOf, openChat, screenshot, transcript, waitForAnswer, waitIdle } from './chat-support.mjs';

const running = demoAndChromium({ chunkDelayMs: 5 });

const WORDS = Array.from({ length: 24 }, (_, i) => `word${i}`).join(' ');

test('an answer streams in as Markdown, is announced once, and persists across a reload', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await chat.script([{ text: `**Syme** is a poet.\n\n- one\n- two\n\n\`\`\`\ncode <b>\n\`\`\`\n\n${WORDS}`, chunkDelayMs: 15 }]);
  await page.evaluate(() => {
    const root = document.querySelector('lectern-chat').shadowRoot;
    window.__lengths = [];
    window.__busy = [];
    window.__announced = [];
    new MutationObserver(() => {
      const items = root.querySelectorAll('li.message.assistant');
      const last = items[items.length - 1];
      if (last) {
        window.__lengths.push(last.querySelector('.body').textContent.length);
        const busy = last.getAttribute('aria-busy');
        if (window.__busy.at(-1) !== busy) window.__busy.push(busy);
      }
    }).observe(root.querySelector('[role="log"]'), { childList: true, subtree: true, characterData: true, attributes: true });
    const status = root.querySelector('[role="status"]');
    new MutationObserver(() => window.__announced.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
  });

  await ask(page, 'Who is Syme?');
  const answer = `Syme is a poet.onetwocode <b>${WORDS}`;
  await waitForAnswer(page, answer);

  const ui = chatOf(page);
  const lengths = await page.evaluate(() => window.__lengths);
  const partial = [...new Set(lengths)].filter((n) => n > 0 && n < answer.length);
  assert.ok(partial.length >= 3, `the answer should appear piece by piece, saw ${JSON.stringify(lengths)}`);
  assert.deepEqual(await page.evaluate(() => window.__busy), ['true', 'false']);
  assert.deepEqual(await page.evaluate(() => window.__announced), ['Answer complete'], 'one line for the turn, no token text');
  const last = ui.assistant.last();
  assert.equal(await last.locator('strong').first().textContent(), 'Syme');
  assert.deepEqual(await last.locator('ul li').allTextContents(), ['one', 'two']);
  assert.equal(await last.locator('pre code').textContent(), 'code <b>');
  assert.equal(await last.locator('b').count(), 0, 'raw HTML stays text');
  assert.match(await ui.usage.last().textContent(), /\d+ in · ≈?\d+ out tokens · \$\d/);
  await page.waitForFunction(() => /^This conversation: /.test(document.querySelector('lectern-chat').shadowRoot.querySelector('.total').textContent));
  const total = await ui.root.locator('.total').textContent();
  assert.match(total, /^This conversation: .*\d+ in · ≈?\d+ out tokens · \$\d/);
  await screenshot(page, 'chat-stream');

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  assert.deepEqual(await transcript(page), [
    ['user', 'Who is Syme?'],
    ['assistant', answer],
  ]);
  await page.waitForFunction(() => /^This conversation: /.test(document.querySelector('lectern-chat').shadowRoot.querySelector('.total').textContent));
  assert.equal(await ui.root.locator('.total').textContent(), total, 'the stored totals, after a reload too');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('Stop aborts the turn and keeps the partial answer, marked stopped, also after a reload', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const long = Array.from({ length: 80 }, (_, i) => `slow${i}`).join(' ');
  await chat.script([{ text: long, chunkDelayMs: 60 }]);
  const ui = chatOf(page);
  await ask(page, 'Tell me a long story');
  await page.waitForFunction(() => {
    const body = document.querySelector('lectern-chat').shadowRoot.querySelector('li.message.assistant .body');
    return body && body.textContent.length > 20;
  });
  await ui.stop.click();
  await waitIdle(page);

  const last = ui.assistant.last();
  const kept = await last.locator('.body').textContent();
  assert.ok(kept.length > 20 && kept.length < long.length && long.startsWith(kept.trim()), `partial answer kept: ${kept}`);
  assert.match(await last.getAttribute('class'), /interrupted/);
  assert.equal(await last.getAttribute('aria-busy'), 'false');
  assert.equal(await ui.status.textContent(), 'Stopped');
  assert.equal(await ui.stop.isHidden(), true);
  const requests = await chat.requests();
  assert.equal(requests.at(-1).closedEarly, true, 'the model request was cut');
  await screenshot(page, 'chat-stop');

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  const again = ui.assistant.last();
  assert.match(await again.getAttribute('class'), /interrupted/);
  assert.ok((await again.locator('.body').textContent()).startsWith(kept.trim().slice(0, 10)));
  await chat.close();
});

test('another conversation set mid-turn stops the old turn, which shows nothing there; the new one answers', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const long = Array.from({ length: 60 }, (_, i) => `old${i}`).join(' ');
  await chat.script([{ text: long, chunkDelayMs: 30 }, { text: 'Fresh answer.' }]);
  const ui = chatOf(page);
  await ask(page, 'A long story, please');
  await page.waitForFunction(() => {
    const body = document.querySelector('lectern-chat').shadowRoot.querySelector('li.message.assistant .body');
    return body && body.textContent.length > 10;
  });
  const oldId = await page.evaluate(async () => {
    const chat = document.querySelector('lectern-chat');
    const left = chat.conversationId;
    chat.conversationId = (await chat.lectern.createConversation({ title: 'Other' })).id;
    await chat.ready;
    return left;
  });
  await waitIdle(page);
  await page.waitForTimeout(300); // the old turn's end, had it gone on
  assert.equal(await ui.messages.count(), 0, `the new conversation is empty: ${await transcript(page)}`);
  await ask(page, 'Something new');
  await waitForAnswer(page, 'Fresh answer.');
  assert.doesNotMatch(JSON.stringify(await transcript(page)), /old\d/, `nothing of the old answer: ${JSON.stringify(await transcript(page))}`);
  assert.equal(await ui.usage.count(), 1, 'one usage line: the new answer\'s, none of the old turn');
  const stored = await page.evaluate((id) => document.querySelector('lectern-chat').lectern.messages(id), oldId);
  const partial = stored.findLast((m) => m.role === 'assistant')?.content ?? '';
  assert.ok(partial.length < long.length, `the old turn was stopped, its answer cut: ${partial.length} of ${long.length}`);
  await chat.close();
});

test('a tool call shows as a card with its arguments, result, duration and step cost, after a reload too', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await chat.script([{ toolCalls: [{ id: 'call_t', name: 'local_time', arguments: {} }] }, { text: 'It is time to read.' }]);
  await ask(page, 'What time is it?');
  await waitForAnswer(page, 'It is time to read.');
  const ui = chatOf(page);
  assert.equal(await ui.toolCards.count(), 1);
  const card = ui.toolCards.first();
  assert.equal(await card.getAttribute('data-tool'), 'local_time');
  const shown = await card.locator('summary').textContent();
  assert.match(shown, /local_time — done · \d+ ms · step \$\d/);
  await card.locator('summary').click();
  assert.match(await card.locator('.result pre').textContent(), /timeZone/);
  const requests = await chat.requests();
  assert.match(requests.at(-1).body.messages.find((m) => m.role === 'tool').content, /timeZone/);
  await screenshot(page, 'chat-tool-card');

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  assert.equal(await ui.toolCards.count(), 1, 'the card is rebuilt from the stored records');
  const rebuilt = await ui.toolCards.first().locator('summary').textContent();
  assert.match(rebuilt, /local_time — done · \d+ ms · step \$\d/, 'the stored duration and step cost');
  assert.equal(rebuilt, shown, 'as it was shown before the reload');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('the host API: lectern-send cancels or adds send options, lectern-finish reports, working state shows, clear() starts anew', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const ui = chatOf(page);
  await page.evaluate(() => {
    const element = document.querySelector('lectern-chat');
    window.__finished = [];
    element.addEventListener('lectern-send', (e) => e.detail.text.startsWith('/') && e.preventDefault());
    // A listener's send options go with the turn.
    element.addEventListener('lectern-send', (e) => Object.assign(e.detail.options, { maxOutputTokens: 77 }));
    document.body.addEventListener('lectern-finish', (e) => window.__finished.push(e.detail));
  });
  assert.equal(await page.evaluate(() => document.querySelector('lectern-chat').send('/help')), false, 'a cancelled send runs no turn');
  assert.equal(await ui.user.count(), 0);
  assert.equal((await chat.requests()).length, 0);

  await page.evaluate(async () => {
    const element = document.querySelector('lectern-chat');
    await element.lectern.setWorkingState(element.conversationId, { chapter: 3, note: '<b>bold</b>' });
  });
  await ask(page, 'Where am I?');
  await waitForAnswer(page, 'Mock reply to: Where am I?');
  const sent = await chat.requests();
  assert.equal(sent.at(-1).body.max_tokens, 77, 'the maxOutputTokens a lectern-send listener set');
  const finished = await page.evaluate(() => window.__finished);
  assert.equal(finished.length, 1, 'lectern-finish bubbles out of the element once');
  assert.equal(finished[0].text, 'Mock reply to: Where am I?');
  assert.ok(finished[0].turnId && finished[0].usage.outputTokens > 0);
  const working = ui.root.locator('details.working-state');
  assert.equal(await working.isHidden(), false, 'show-working-state shows it');
  assert.match(await working.locator('pre').textContent(), /"chapter": 3/);

  const before = await page.evaluate(() => document.querySelector('lectern-chat').conversationId);
  await page.evaluate(() => document.querySelector('lectern-chat').clear());
  const after = await page.evaluate(() => document.querySelector('lectern-chat').conversationId);
  assert.notEqual(after, before);
  assert.equal(await ui.messages.count(), 0, 'a new, empty conversation');
  const kept = await page.evaluate(async (id) => (await document.querySelector('lectern-chat').lectern.messages(id)).length, before);
  assert.equal(kept, 2, 'the old conversation stays stored');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('a turn cut off by a reload offers Continue, which finishes it without running its tool again', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await chat.script([
    { toolCalls: [{ id: 'call_t', name: 'local_time', arguments: {} }] },
    // Still waiting when the page reloads.
    { text: 'never shown', delayMs: 8000 },
    { text: 'It is time to read.' },
  ]);
  const ui = chatOf(page);
  await ask(page, 'What time is it?');
  for (let i = 0; i < 100 && (await chat.requests()).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal((await chat.requests()).length, 2, 'the tool step is stored and the next model call waits');

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  const cut = page.locator('lectern-chat li[data-role="interrupted"]');
  assert.equal(await cut.count(), 1, 'the cut-off turn is offered');
  assert.equal(await ui.toolCards.count(), 1, 'its stored tool step shows');
  await screenshot(page, 'chat-interrupted');
  await cut.locator('button.resume').click();
  await waitForAnswer(page, 'It is time to read.');
  assert.equal(await cut.count(), 0, 'the offer is gone once it continued');
  const requests = await chat.requests();
  assert.equal(requests.length, 3);
  assert.match(requests[2].body.messages.find((m) => m.role === 'tool').content, /timeZone/, 'the stored result');
  assert.equal(await ui.toolCards.count(), 1, 'the tool did not run again');

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  assert.equal(await cut.count(), 0, 'nothing left to continue');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('the working-state panel follows turns the widget did not start (the host, another tab, a headless run)', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const ui = chatOf(page);
  await ask(page, 'Hello');
  await waitForAnswer(page, 'Mock reply to: Hello');
  await page.evaluate(async () => {
    const element = document.querySelector('lectern-chat');
    await element.lectern.setWorkingState(element.conversationId, { step: 'set by the host' });
    await element.lectern.send(element.conversationId, 'From the host');
  });
  await page.waitForFunction(
    () => /set by the host/.test(document.querySelector('lectern-chat').shadowRoot.querySelector('details.working-state pre').textContent),
    null,
    { timeout: 10000 },
  );
  assert.equal(await ui.root.locator('details.working-state').isHidden(), false);
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

/** The working-state panel's text in `page`. */
const panelText = (page) => page.evaluate(() => document.querySelector('lectern-chat').shadowRoot.querySelector('details.working-state pre').textContent);

/** Registers `track` on the page's engine: a read-only tool that sets the working state to its arguments. */
const registerTrack = (page) =>
  page.evaluate(() =>
    document.querySelector('lectern-chat').lectern.registerTool({
      name: 'track',
      description: 'Notes where the reader is',
      parameters: { type: 'object', properties: { chapter: { type: 'number' } } },
      readOnly: true,
      execute: (args, ctx) => {
        ctx.setWorkingState({ chapter: args.chapter });
        return 'noted';
      },
    }),
  );

test("the working-state panel shows a tool's new state mid-turn, while the next model call still runs", async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await registerTrack(page);
  await chat.script([{ toolCalls: [{ id: 'call_w', name: 'track', arguments: { chapter: 7 } }] }, { text: 'Chapter seven.', delayMs: 4000 }]);
  await ask(page, 'Note chapter 7');
  await page.waitForFunction(
    () => /"chapter": 7/.test(document.querySelector('lectern-chat').shadowRoot.querySelector('details.working-state pre').textContent),
    null,
    { timeout: 3500 },
  );
  assert.equal(await page.evaluate(() => document.querySelector('lectern-chat').hasAttribute('busy')), true, 'shown before the turn ended');
  await waitForAnswer(page, 'Chapter seven.');
  assert.match(await panelText(page), /"chapter": 7/, 'and kept after it');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

test('another tab on the same database is followed: its working state (host and tools), its answers, its runs to review', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  await page.waitForFunction(() => document.querySelector('lectern-chat').conversationId);
  const id = await page.evaluate(() => document.querySelector('lectern-chat').conversationId);
  // The second tab: the same origin and storage (one context), its own engine on the same dbName.
  const other = await chat.context.newPage();
  await other.goto(`${running.demo.url}chat.html?mock-session=${chat.session}`);
  await other.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  await other.evaluate((id) => document.querySelector('lectern-chat').lectern.setWorkingState(id, { from: 'the other tab' }), id);
  await page.waitForFunction(() => /the other tab/.test(document.querySelector('lectern-chat').shadowRoot.querySelector('details.working-state pre').textContent), null, {
    timeout: 10000,
    polling: 100, // the first tab is in the background: requestAnimationFrame, the default polling, may not run there
  });

  await registerTrack(other);
  await chat.script([{ toolCalls: [{ id: 'call_o', name: 'track', arguments: { chapter: 11 } }] }, { text: 'Eleven.', delayMs: 4000 }]);
  const sent = other.evaluate((id) => document.querySelector('lectern-chat').lectern.send(id, 'Note chapter 11'), id);
  await page.waitForFunction(() => /"chapter": 11/.test(document.querySelector('lectern-chat').shadowRoot.querySelector('details.working-state pre').textContent), null, {
    timeout: 3500,
    polling: 100,
  });
  assert.equal((await sent).text, 'Eleven.');
  // The other tab's turn shows in this one: its question and answer, from the store.
  await page.waitForFunction(
    () => [...document.querySelector('lectern-chat').shadowRoot.querySelectorAll('li.message.assistant .body')].some((b) => b.textContent === 'Eleven.'),
    null,
    { timeout: 10000, polling: 100 },
  );
  assert.deepEqual((await transcript(page)).slice(-2), [
    ['user', 'Note chapter 11'],
    ['assistant', 'Eleven.'],
  ]);
  // A headless run there that ends proposed asks for a review here.
  await chat.script([{ toolCalls: [{ id: 'call_n', name: 'save_note', arguments: { title: 'elsewhere', text: 'from tab 2' } }] }, { text: 'Saved.' }]);
  const run = await other.evaluate((id) => document.querySelector('lectern-chat').lectern.runHeadless({ conversationId: id, instruction: 'Save a note' }), id);
  assert.equal(run.status, 'proposed');
  await page.locator('lectern-chat').locator('li.review-banner').waitFor({ timeout: 10000 });
  assert.deepEqual(chat.problems, []);
  await chat.close();
});

