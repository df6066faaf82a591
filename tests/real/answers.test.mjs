// The built package against a real llama-server (SmolLM2-135M-Instruct): a streamed answer, a
// whole one, and the usage each reports, checked against what the server itself counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metrics, openLectern, providerFor, realServer, send } from './harness.mjs';

const real = realServer();
const skip = real.skip;

test('a streamed answer arrives in pieces that make up the reply', { skip, timeout: 400000 }, async () => {
  const { page, bodies } = await openLectern(real, providerFor(real));
  const before = await metrics(real.server);
  const { reply, error } = await send(page, 'What is the capital of France?');
  assert.equal(error, undefined, JSON.stringify(error));
  const after = await metrics(real.server);
  assert.equal(bodies.length, 1);
  assert.equal(bodies[0].stream, true, 'Lectern asked for a stream');
  const deltas = await page.evaluate(() => window.events.filter((e) => e.type === 'textDelta').map((e) => e.text));
  assert.ok(deltas.length > 3, `the answer streamed in pieces: ${JSON.stringify(deltas)}`);
  assert.equal(deltas.join(''), reply.text);
  assert.ok(reply.text.trim().length > 0, 'an answer');
  assert.equal(reply.status, 'completed');
  // The usage Lectern reports is the server's own count of what it generated for this request.
  assert.equal(reply.usage.outputTokens, after.tokens_predicted_total - before.tokens_predicted_total);
  assert.ok(reply.usage.outputTokens > 0 && reply.usage.outputTokens <= 48, `max_tokens 48: ${reply.usage.outputTokens}`);
  assert.ok(reply.usage.inputTokens > 10, `the system prompt and the question: ${reply.usage.inputTokens}`);
  assert.equal(reply.usage.estimated ?? false, false, 'usage from the server, not estimated');
  await page.close();
});

test('a whole (non-streamed) answer', { skip, timeout: 400000 }, async () => {
  const { page, bodies, answers } = await openLectern(real, providerFor(real, { stream: false }));
  const before = await metrics(real.server);
  const { reply, error } = await send(page, 'Name three colours.');
  assert.equal(error, undefined, JSON.stringify(error));
  const after = await metrics(real.server);
  assert.equal(bodies.length, 1);
  assert.equal(bodies[0].stream, undefined, 'no stream asked');
  const whole = JSON.parse(await answers[0]);
  assert.equal(whole.object, 'chat.completion', 'one JSON answer, not a stream');
  assert.ok(reply.text.trim().length > 0, 'an answer');
  assert.equal(reply.text, whole.choices[0].message.content);
  assert.equal(reply.usage.inputTokens, whole.usage.prompt_tokens);
  const stored = await page.evaluate(() => window.lectern.messages(window.conversation));
  assert.equal(stored.at(-1).role, 'assistant');
  assert.equal(stored.at(-1).content, reply.text);
  assert.equal(reply.usage.outputTokens, after.tokens_predicted_total - before.tokens_predicted_total);
  assert.ok(reply.usage.inputTokens > 10);
  await page.close();
});

test("a second request sharing the first one's prefix reports the server's cached prompt tokens", { skip, timeout: 400000 }, async () => {
  const { page, bodies, answers } = await openLectern(real, providerFor(real, { maxTokens: 16 }));
  const first = await send(page, 'What is the capital of France?');
  assert.equal(first.error, undefined, JSON.stringify(first.error));
  const second = await send(page, 'And the capital of Italy?');
  assert.equal(second.error, undefined, JSON.stringify(second.error));
  assert.equal(bodies.length, 2);
  // The second request repeats the first one's messages: the server reads that prefix from its cache.
  assert.deepEqual(bodies[1].messages.slice(0, bodies[0].messages.length), bodies[0].messages);
  const { usage } = second.reply;
  assert.ok(usage.cachedInputTokens > 10, `cached prompt tokens reported: ${JSON.stringify(usage)}`);
  assert.ok(usage.cachedInputTokens < usage.inputTokens, 'the new question was read, not cached');
  assert.ok(usage.cachedInputTokens <= first.reply.usage.inputTokens + first.reply.usage.outputTokens);
  // The figure the server sent in the stream's last usage chunk, as Lectern exposes it.
  const sse = await answers[1];
  const chunks = sse.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)));
  const sent = chunks.findLast((c) => c.usage)?.usage;
  assert.ok(sent, `a usage chunk in the stream: ${sse.slice(-500)}`);
  assert.equal(usage.cachedInputTokens, sent.prompt_tokens_details.cached_tokens);
  assert.equal(usage.inputTokens, sent.prompt_tokens);
  const turns = await page.evaluate(() => window.lectern.usage(window.conversation));
  assert.equal(turns.turns, 2);
  assert.equal(turns.cachedInputTokens, first.reply.usage.cachedInputTokens + usage.cachedInputTokens);
  await page.close();
});
