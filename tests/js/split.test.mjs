// The page's module without its rarely used methods, in headless Chromium:
// a page opens Lectern and gets its first answer without fetching any chunk
// (split_*.wasm, chunk_*.wasm); the first `exportConversation` fetches the
// portability chunk and works; a chunk that fails to load rejects its call
// with a ConnectionError, leaves Lectern working, and loads on the next
// call; a chunk served without the wasm content type still loads; an Anthropic or
// custom provider opens with its own chunk (an OpenAI-compatible one with none);
// current_datetime runs from its chunk, fetched at the first call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAndChromium, ENGINE } from './browser.mjs';

const running = demoAndChromium({ chunkDelayMs: 0 });
const SESSION = 'split';
const skip = ENGINE !== 'chromium' && 'request routing is driven through Playwright in Chromium';

const mock = () => `${running.demo.mockUrl}/__mock/${SESSION}`;
const script = (turns) =>
  fetch(`${mock()}/script`, { method: 'POST', body: JSON.stringify({ turns }) });

/** A page with Lectern open (in memory) as `window.lectern`, and the wasm files it requested. */
async function openPage() {
  const page = await running.browser.newPage();
  const wasm = [];
  page.on('request', (request) => {
    if (request.url().endsWith('.wasm')) wasm.push(new URL(request.url()).pathname.split('/').pop());
  });
  await page.goto(`${running.demo.url}blank`);
  await page.evaluate(async (baseUrl) => {
    const { default: init, Lectern } = await import('/pkg/lectern.js');
    await init();
    window.lectern = await Lectern.open({
      provider: { kind: 'openai', baseUrl, model: 'mock', apiKey: 'k', stream: false },
    });
  }, `${running.demo.mockUrl}/s/${SESSION}/v1`);
  return { page, wasm };
}

test('the first answer loads no chunk; exportConversation loads its chunk', { skip }, async () => {
  await script([{ text: 'Hello from the model.' }]);
  const { page, wasm } = await openPage();
  const answer = await page.evaluate(async () => {
    const { id } = await window.lectern.createConversation({ title: 'Split' });
    window.conversationId = id;
    return (await window.lectern.send(id, 'Hi')).text;
  });
  assert.equal(answer, 'Hello from the model.');
  assert.deepEqual(wasm, ['lectern_bg.wasm'], 'only the main module before the first answer');

  const exported = await page.evaluate(() => window.lectern.exportConversation(window.conversationId));
  assert.equal(exported.format, 'lectern');
  assert.deepEqual(
    exported.messages.map((m) => m.role),
    ['user', 'assistant'],
  );
  assert.ok(wasm.includes('split_portability.wasm'), `the portability chunk was fetched: ${wasm}`);
  assert.ok(!wasm.includes('split_history.wasm'), 'not the other chunks');
  await page.close();
});

test('a chunk that fails to load rejects its call, and loads on the next', { skip }, async () => {
  const { page, wasm } = await openPage();
  let refused = 0;
  await page.route(/\/split_history\.wasm$/, (route) => {
    if (refused++ === 0) return route.fulfill({ status: 503, body: 'unavailable' });
    return route.continue();
  });
  const outcome = await page.evaluate(async () => {
    const { id } = await window.lectern.createConversation({ title: 'Offline' });
    let first;
    try {
      await window.lectern.recordedTurns(id);
      first = 'resolved';
    } catch (error) {
      first = { name: error.name, message: error.message };
    }
    const conversations = (await window.lectern.conversations()).length;
    const second = await window.lectern.recordedTurns(id);
    return { first, conversations, second };
  });
  assert.equal(outcome.first.name, 'ConnectionError');
  assert.match(outcome.first.message, /did not load/);
  assert.equal(outcome.conversations, 1, 'Lectern still works after the failed load');
  assert.deepEqual(outcome.second, [], 'the next call fetched the chunk again and ran');
  assert.equal(wasm.filter((file) => file === 'split_history.wasm').length, 2);
  await page.close();
});

test('a chunk served without the wasm content type still loads', { skip }, async () => {
  const { page } = await openPage();
  await page.route(/\/split_maintenance\.wasm$/, async (route) => {
    const response = await route.fetch();
    await route.fulfill({
      status: 200,
      headers: { 'content-type': 'application/octet-stream' },
      body: await response.body(),
    });
  });
  const state = await page.evaluate(async () => {
    const { id } = await window.lectern.createConversation({ title: 'State' });
    await window.lectern.setWorkingState(id, { step: 2 });
    return window.lectern.workingState(id);
  });
  assert.deepEqual(state, { step: 2 });
  await page.close();
});

test('Anthropic and a custom function open with their provider chunk; a failed load rejects open', { skip }, async () => {
  await script([{ text: 'From Anthropic.' }, { text: 'never read' }]);
  const page = await running.browser.newPage();
  const wasm = [];
  page.on('request', (request) => {
    if (request.url().endsWith('.wasm')) wasm.push(new URL(request.url()).pathname.split('/').pop());
  });
  let refused = 0;
  await page.route(/\/split_anthropic\.wasm$/, (route) => {
    if (refused++ === 0) return route.fulfill({ status: 503, body: 'unavailable' });
    return route.continue();
  });
  await page.goto(`${running.demo.url}blank`);
  const outcome = await page.evaluate(async (baseUrl) => {
    const { default: init, Lectern } = await import('/pkg/lectern.js');
    await init();
    const anthropic = { kind: 'anthropic', baseUrl, model: 'mock', apiKey: 'k', stream: false };
    let first;
    try {
      await Lectern.open({ provider: anthropic });
      first = 'opened';
    } catch (error) {
      first = error.name;
    }
    const lectern = await Lectern.open({ provider: anthropic });
    const { id } = await lectern.createConversation({ title: 'Anthropic' });
    const fromAnthropic = (await lectern.send(id, 'Hi')).text;
    const call = async () => ({ choices: [{ message: { role: 'assistant', content: 'From the host.' }, finish_reason: 'stop' }] });
    const custom = await Lectern.open({ provider: { kind: 'custom', stream: false, call } });
    const other = await custom.createConversation({ title: 'Custom' });
    const fromHost = (await custom.send(other.id, 'Hi')).text;
    return { first, fromAnthropic, fromHost };
  }, `${running.demo.mockUrl}/s/${SESSION}/v1`);
  assert.deepEqual(outcome, { first: 'ConnectionError', fromAnthropic: 'From Anthropic.', fromHost: 'From the host.' });
  assert.equal(wasm.filter((file) => file === 'split_anthropic.wasm').length, 2, `fetched again after the failure: ${wasm}`);
  assert.ok(wasm.includes('split_custom.wasm'), `the custom provider's chunk: ${wasm}`);
  await page.close();
});

test('current_datetime is offered at once and runs from its chunk at its first call', { skip }, async () => {
  const session = 'split-tools';
  const base = `${running.demo.mockUrl}/__mock/${session}`;
  await fetch(`${base}/script`, {
    method: 'POST',
    body: JSON.stringify({
      turns: [
        { toolCalls: [{ id: 'call_time', name: 'current_datetime', arguments: { timeZone: 'Asia/Tokyo' } }] },
        { text: 'It is evening in Tokyo.' },
      ],
    }),
  });
  const page = await running.browser.newPage();
  const wasm = [];
  page.on('request', (request) => {
    if (request.url().endsWith('.wasm')) wasm.push(new URL(request.url()).pathname.split('/').pop());
  });
  await page.goto(`${running.demo.url}blank`);
  const answer = await page.evaluate(async (baseUrl) => {
    const { default: init, Lectern } = await import('/pkg/lectern.js');
    await init();
    const lectern = await Lectern.open({
      provider: { kind: 'openai', baseUrl, model: 'mock', apiKey: 'k', stream: false },
      builtinTools: ['current_datetime'],
    });
    const { id } = await lectern.createConversation({ title: 'Time' });
    return (await lectern.send(id, 'What time is it in Tokyo?')).text;
  }, `${running.demo.mockUrl}/s/${session}/v1`);
  assert.equal(answer, 'It is evening in Tokyo.');
  const requests = await (await fetch(`${base}/requests`)).json();
  assert.ok(requests[0].body.tools.some((t) => t.function.name === 'current_datetime'), 'offered in the first request');
  const result = JSON.parse(requests.at(-1).body.messages.find((m) => m.role === 'tool').content);
  assert.equal(result.timeZone, 'Asia/Tokyo');
  assert.match(result.iso, /^\d{4}-\d{2}-\d{2}T/);
  assert.ok(wasm.includes('split_builtin_tools.wasm'), `the tool's chunk was fetched: ${wasm}`);
  await page.close();
});
