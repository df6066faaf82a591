// The demo page in headless Chromium: type a message, watch the reply stream
// in, reload, and find the conversation still there; and, when the server
// offers one (scripts/fetch-smollm2.sh), the answer of the model in the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { startDemo } from '../../scripts/serve.mjs';
import { demoAndChromium } from './browser.mjs';

const running = demoAndChromium({ chunkDelayMs: 40 });

test('a typed message gets a reply that streams in and persists across a reload', async () => {
  const page = await running.browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));

  await page.goto(running.demo.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });

  // Record every length the assistant bubble passes through while streaming.
  await page.evaluate(() => {
    window.__lengths = [];
    new MutationObserver(() => {
      const bubbles = document.querySelectorAll('#log .message.assistant .body');
      const last = bubbles[bubbles.length - 1];
      if (last) window.__lengths.push(last.textContent.length);
    }).observe(document.querySelector('#log'), { childList: true, subtree: true, characterData: true });
  });

  await page.fill('#message', 'Hello from the demo test');
  await page.press('#message', 'Enter');
  const expected = 'Mock reply to: Hello from the demo test';
  await page.waitForFunction(
    (text) => {
      const bubble = document.querySelector('#log .message.assistant:last-child');
      return bubble && !bubble.classList.contains('streaming') && bubble.textContent === text;
    },
    expected,
    { timeout: 15000 },
  );

  const lengths = await page.evaluate(() => window.__lengths);
  const partial = [...new Set(lengths)].filter((n) => n > 0 && n < expected.length);
  assert.ok(partial.length >= 3, `the reply should appear piece by piece, saw lengths ${JSON.stringify(lengths)}`);
  assert.deepEqual([...partial].sort((a, b) => a - b), partial, 'the reply only grows');
  assert.match(await page.textContent('#status'), /tokens in/);

  await mkdir('.test-artifacts', { recursive: true });
  await page.screenshot({ path: '.test-artifacts/demo.png', fullPage: true });

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  const texts = await page.$$eval('#log .message', (items) => items.map((i) => [i.dataset.role, i.textContent]));
  assert.deepEqual(texts, [
    ['user', 'Hello from the demo test'],
    ['assistant', expected],
  ]);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a tool call from the model runs the page\'s tool and shows in the chat', async () => {
  const page = await running.browser.newPage();
  await page.goto(running.demo.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  await fetch(`${running.demo.mockUrl}/__mock/default/script`, {
    method: 'POST',
    body: JSON.stringify({ turns: [{ toolCalls: [{ name: 'local_time', arguments: {} }] }, { text: 'It is time to read.' }] }),
  });
  await page.fill('#message', 'What time is it?');
  await page.press('#message', 'Enter');
  await page.waitForFunction(() => document.querySelector('#log .message.assistant:last-child')?.textContent === 'It is time to read.', null, {
    timeout: 15000,
  });
  const toolLines = await page.$$eval('#log .message.tool', (items) => items.map((i) => i.textContent));
  assert.deepEqual(toolLines, ['Used local_time']);
  const requests = await (await fetch(`${running.demo.mockUrl}/__mock/default/requests`)).json();
  const toolMessage = requests.at(-1).body.messages.find((m) => m.role === 'tool');
  assert.match(toolMessage.content, /timeZone/);
  await page.close();
});

test('a server that refuses the key shows a typed error in the chat', async () => {
  const page = await running.browser.newPage();
  await page.goto(running.demo.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  await fetch(`${running.demo.mockUrl}/__mock/default/script`, {
    method: 'POST',
    body: JSON.stringify({ turns: [{ fault: { status: 401, body: { error: { message: 'bad key' } } } }] }),
  });
  await page.fill('#message', 'Is my key fine?');
  await page.press('#message', 'Enter');
  await page.waitForSelector('#log .message.assistant.error', { timeout: 15000 });
  assert.match(await page.textContent('#log .message.assistant.error'), /^AuthError: .*bad key/);
  await page.close();
});

test('a tool that needs approval waits across a reload and runs once with the reader\'s edit', async () => {
  const page = await running.browser.newPage();
  await page.goto(running.demo.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  await page.click('#new-conversation');
  await fetch(`${running.demo.mockUrl}/__mock/default/script`, {
    method: 'POST',
    body: JSON.stringify({
      turns: [
        { toolCalls: [{ id: 'call_note', name: 'save_note', arguments: { title: 'Syme', text: 'a poet' } }] },
        { text: 'Saved your note.' },
      ],
    }),
  });
  await page.fill('#message', 'Note that Syme is a poet');
  await page.press('#message', 'Enter');
  await page.waitForSelector('#log .message.approval', { timeout: 15000 });
  assert.match(await page.inputValue('#log .approval .arguments'), /"a poet"/);
  assert.equal(await page.evaluate(() => localStorage.getItem('lectern-demo-notes')), null, 'nothing ran yet');

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  await page.waitForSelector('#log .message.approval', { timeout: 15000 });
  await page.fill('#log .approval .arguments', JSON.stringify({ title: 'Syme', text: 'a poet and a detective' }));
  await page.click('#log .approval button.edit');
  await page.waitForFunction(
    () => {
      const bubble = document.querySelector('#log .message.assistant:last-child');
      return bubble && !bubble.classList.contains('streaming') && bubble.textContent === 'Saved your note.';
    },
    null,
    { timeout: 15000 },
  );
  assert.equal(await page.$$eval('#log .message.approval', (cards) => cards.length), 0);
  const notes = JSON.parse(await page.evaluate(() => localStorage.getItem('lectern-demo-notes')));
  assert.deepEqual(notes.map((n) => [n.title, n.text]), [['Syme', 'a poet and a detective']], 'the edited note, saved once');
  const requests = await (await fetch(`${running.demo.mockUrl}/__mock/default/requests`)).json();
  const call = requests.at(-1).body.messages.find((m) => m.tool_calls)?.tool_calls[0];
  assert.deepEqual(JSON.parse(call.function.arguments), { title: 'Syme', text: 'a poet and a detective' });

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  assert.equal(await page.$$eval('#log .message.approval', (cards) => cards.length), 0, 'no approval left after a reload');
  await page.close();
});

test('the demo answers with the model in the page when the server offers one', { timeout: 300000 }, async (t) => {
  const fetched = spawnSync('bash', ['scripts/fetch-smollm2.sh'], { encoding: 'utf8' }).stdout.trim().split('\n').pop() ?? '';
  const model = fetched.startsWith('LECTERN_SMOLLM2=') ? fetched.slice('LECTERN_SMOLLM2='.length) : null;
  if (!model || !existsSync('node_modules/@wllama/wllama/esm/wasm/wllama.wasm')) {
    t.skip(model ? 'SKIPPED: @wllama/wllama is not installed' : fetched);
    return;
  }
  const demo = await startDemo({ port: 0, chunkDelayMs: 0, localModel: model });
  const page = await running.browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  try {
    await page.goto(demo.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
    await page.click('#settings-panel summary');
    await page.click('#use-local');
    await page.waitForFunction(() => /is ready, in this page/.test(document.querySelector('#status').textContent), null, {
      timeout: 120000,
    });
    await page.fill('#message', 'Say hello in five words.');
    await page.press('#message', 'Enter');
    await page.waitForFunction(
      () => {
        const bubble = document.querySelector('#log .message.assistant:last-child');
        return bubble && !bubble.classList.contains('streaming') && bubble.textContent.trim().length > 0;
      },
      null,
      { timeout: 180000 },
    );
    const answer = await page.$eval('#log .message.assistant:last-child', (b) => ({ text: b.textContent, error: b.classList.contains('error') }));
    assert.equal(answer.error, false, answer.text);
    assert.match(await page.textContent('#status'), /tokens in/);
    await page.screenshot({ path: '.test-artifacts/demo-local-model.png', fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    await demo.close();
  }
});
