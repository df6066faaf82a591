// A turn cut off by a closed tab, in headless Chromium: page A starts a turn
// whose tool step is stored and whose next model call hangs, and is closed.
// While A is open, page B (same origin and dbName) does not list the turn —
// A holds its conversation's Web Lock. Once A is closed, B lists it with
// `interruptedTurns()`, and `resumeTurn` completes it under the same turn id
// without running the stored tool call again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAndChromium } from './browser.mjs';

const running = demoAndChromium({ chunkDelayMs: 0 });
const SESSION = 'resume';
const DB = 'resume-test';

const mock = () => `${running.demo.mockUrl}/__mock/${SESSION}`;
const script = (turns) =>
  fetch(`${mock()}/script`, { method: 'POST', body: JSON.stringify({ turns }) });
const requests = async () => (await fetch(`${mock()}/requests`)).json();

/** Polls `check` every 100 ms until it returns a truthy value, for at most `ms`. */
async function until(check, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A tab of the demo's origin with Lectern open on `DB` as `window.lectern`; `window.lookups` counts its tool's runs. */
async function tab(context) {
  const page = await context.newPage();
  await page.goto(`${running.demo.url}blank`);
  await page.evaluate(
    async ({ dbName, baseUrl }) => {
      const { default: init, Lectern } = await import('/pkg/lectern.js');
      await init();
      window.lookups = 0;
      window.lectern = await Lectern.open({
        dbName,
        provider: { kind: 'openai', baseUrl, model: 'mock', apiKey: 'k', stream: false },
      });
      window.lectern.registerTool({
        name: 'lookup',
        description: 'Looks it up',
        parameters: { type: 'object', properties: {} },
        readOnly: true,
        async execute() {
          window.lookups += 1;
          return { found: 'the key is under the mat' };
        },
      });
    },
    { dbName: DB, baseUrl: `${running.demo.mockUrl}/s/${SESSION}/v1` },
  );
  return page;
}

test('a turn cut off by a closed tab is listed in another tab and resumed there', async () => {
  await script([
    { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: {} }] },
    // Page A's second model call: still waiting when A closes.
    { text: 'never read', delayMs: 8_000 },
    { text: 'The key is under the mat.' },
  ]);
  const context = await running.browser.newContext();
  const a = await tab(context);
  const b = await tab(context);
  const conversationId = await a.evaluate(async () => {
    const { id } = await window.lectern.createConversation({ title: 'Keys' });
    // Not awaited: the turn is still running when the tab closes.
    window.lectern.send(id, 'Where is the key?').catch(() => {});
    return id;
  });
  await until(async () => (await requests()).length >= 2, 10_000, 'the second model call');

  const whileOpen = await b.evaluate(() => window.lectern.interruptedTurns());
  assert.deepEqual(whileOpen, [], 'tab A still runs the turn (it holds the lock)');

  await a.close();
  const listed = await until(
    async () => {
      const turns = await b.evaluate(() => window.lectern.interruptedTurns());
      return turns.length > 0 && turns;
    },
    10_000,
    'the closed tab to let its lock go',
  );
  assert.equal(listed.length, 1);
  const [turn] = listed;
  assert.equal(turn.conversationId, conversationId);
  assert.equal(turn.steps, 1);
  assert.equal(turn.completedToolCalls, 1);
  assert.deepEqual(turn.interruptedCalls, []);

  const outcome = await b.evaluate(async ({ turnId, conversationId }) => {
    const result = await window.lectern.resumeTurn(turnId);
    const messages = await window.lectern.messages(conversationId);
    return {
      text: result.text,
      turnId: result.turnId,
      roles: messages.map((m) => m.role),
      lookups: window.lookups,
      left: await window.lectern.interruptedTurns(conversationId),
    };
  }, { turnId: turn.turnId, conversationId });
  assert.equal(outcome.text, 'The key is under the mat.');
  assert.equal(outcome.turnId, turn.turnId, 'the same turn went on');
  assert.deepEqual(outcome.roles, ['user', 'assistant', 'tool_result', 'assistant']);
  assert.equal(outcome.lookups, 0, 'the tool call A completed was not run again in B');
  assert.deepEqual(outcome.left, []);
  const sent = await requests();
  const resumed = sent.at(-1).body.messages;
  assert.ok(JSON.stringify(resumed).includes('under the mat'), 'the model read the stored tool result');

  const refused = await b.evaluate(async (turnId) => {
    try {
      await window.lectern.resumeTurn(turnId);
      return null;
    } catch (e) {
      return e.name;
    }
  }, turn.turnId);
  assert.equal(refused, 'NotFoundError', 'a turn that ended cannot be resumed again');
  await context.close();
});
