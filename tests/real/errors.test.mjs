// A real llama-server's refusals reach the host as Lectern's typed errors: a wrong path is
// llama-server's 404 (`ApiError`, status 404), and a request the model cannot take — a prompt
// longer than its context — its 400 `exceed_context_size_error` (`ApiError`, status 400, the
// server's reason in the body). Neither is retried. (A wrong model name is no error here:
// llama-server serving one model answers whatever `model` says.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLectern, providerFor, realServer, send } from './harness.mjs';

const real = realServer({ args: ['-c', '1024'] });
const skip = real.skip;

test('a wrong baseUrl: the server\'s 404 is an ApiError with status 404', { skip, timeout: 400000 }, async () => {
  const { page, bodies } = await openLectern(real, providerFor(real, { baseUrl: `${real.recorder.url}/nope/v1`, maxRetries: 2 }));
  const { error } = await send(page, 'Hello?');
  assert.equal(error?.name, 'ApiError', JSON.stringify(error));
  assert.equal(error.status, 404);
  assert.match(error.message, /404/);
  assert.equal(bodies.length, 1, 'a 404 is not retried');
  const details = await page.evaluate(async () => {
    try {
      await window.lectern.retry(window.conversation);
    } catch (e) {
      return { name: e.name, body: e.body, isError: e instanceof Error };
    }
  });
  assert.equal(details.isError, true, 'a real Error');
  assert.equal(details.name, 'ApiError');
  assert.match(details.body, /not_found_error|File Not Found/, 'the server\'s body excerpt is carried');
  await page.close();
});

test('a request over the model\'s context: the server\'s 400 is an ApiError with its reason', { skip, timeout: 400000 }, async () => {
  const { page, bodies } = await openLectern(real, providerFor(real, { maxRetries: 2 }));
  const long = 'The man who was Thursday walked along the river at night. '.repeat(120); // ~1,500 tokens
  const outcome = await page.evaluate(async (text) => {
    try {
      await window.lectern.send(window.conversation, text);
      return { resolved: true };
    } catch (e) {
      return { name: e.name, status: e.status, body: e.body, message: e.message };
    }
  }, long);
  assert.equal(outcome.name, 'ApiError', JSON.stringify(outcome));
  assert.equal(outcome.status, 400);
  assert.match(outcome.body, /exceed_context_size_error|exceeds the available context size/);
  assert.equal(bodies.length, 1, 'a 400 is not retried');
  const messages = await page.evaluate(() => window.lectern.messages(window.conversation));
  assert.deepEqual(messages.map((m) => m.role), ['user'], 'the question stays stored, no answer is written');
  await page.close();
});
