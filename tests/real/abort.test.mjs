// An abort through `send`'s signal reaches a real llama-server: the turn rejects with AbortError
// and the server cancels the task (its log says so) and frees its slot long before the answer's
// token limit, instead of generating on for nobody.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLectern, providerFor, realServer } from './harness.mjs';

const real = realServer();
const skip = real.skip;

/** The server's one slot (`/slots`, started with `--slots`). */
const slot = async (server) => (await (await fetch(`${server.url}/slots`)).json())[0];

test('an aborted turn stops the generation on the server', { skip, timeout: 400000 }, async () => {
  const limit = 1000;
  const { page } = await openLectern(real, providerFor(real, { maxTokens: limit }, { direct: true }));
  const logBefore = real.server.log().length;
  const outcome = await page.evaluate(async () => {
    const controller = new AbortController();
    let deltas = 0;
    window.onLecternEvent = (event) => {
      // Abort once the answer is flowing: a few pieces have arrived.
      if (event.type === 'textDelta' && ++deltas === 3) controller.abort();
    };
    try {
      await window.lectern.send(window.conversation, 'Tell me a very long story about a dragon and a knight.', {
        signal: controller.signal,
      });
      return { resolved: true, deltas };
    } catch (e) {
      return { name: e.name, partialText: e.partialText, deltas };
    }
  });
  assert.equal(outcome.name, 'AbortError', JSON.stringify(outcome));
  assert.ok(outcome.deltas >= 3, 'the answer had started');

  // The server saw the connection close: it cancels the task and releases the slot.
  const deadline = Date.now() + 10000;
  let state = await slot(real.server);
  while (state.is_processing && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    state = await slot(real.server);
  }
  assert.equal(state.is_processing, false, 'the slot is free again');
  const log = real.server.log().slice(logBefore);
  const cancelled = /cancel task, id_task = (\d+)/.exec(log);
  assert.ok(cancelled, `the server cancelled the task:\n${log}`);
  // It stopped early: far fewer tokens than the limit were generated before the release.
  const released = new RegExp(`task ${cancelled[1]} \\| stop processing: n_tokens = (\\d+)`).exec(log);
  assert.ok(released, `the task's slot was released:\n${log}`);
  assert.ok(Number(released[1]) < limit, `stopped after ${released[1]} tokens (prompt included), not ${limit} generated`);
  assert.ok(!log.includes(`task ${cancelled[1]} |        eval time`), 'no finished generation was reported for it');

  // What streamed before the abort is kept, marked interrupted (docs/api.md, Abort).
  const messages = await page.evaluate(() => window.lectern.messages(window.conversation));
  assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant']);
  assert.equal(messages[1].interrupted, true);
  assert.ok(messages[1].content.length > 0);
  assert.equal(messages[1].content, outcome.partialText);
  await page.close();
});
