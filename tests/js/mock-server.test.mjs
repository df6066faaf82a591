// The mock model server speaks the documented wire formats.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMockServer } from '../mock-server/server.mjs';

let mock;
before(async () => {
  mock = await startMockServer();
});
after(() => mock.close());

const post = (path, body) =>
  fetch(`${mock.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const script = (session, turns) => post(`/__mock/${session}/script`, { turns });
const events = (text) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const event = block.match(/^event: (.*)$/m)?.[1];
      const data = block.match(/^data: (.*)$/m)?.[1];
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    });

test('OpenAI stream: text, split tool-call arguments, usage chunk, [DONE]', async () => {
  await script('oa', [{ text: 'Two tools', toolCalls: [{ name: 'a', arguments: { city: 'Oslo' } }, { name: 'b', arguments: {} }] }]);
  const res = await post('/s/oa/v1/chat/completions', {
    model: 'm',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  const chunks = events(await res.text());
  assert.equal(chunks.at(-1).data, '[DONE]');
  const usage = chunks.at(-2).data;
  assert.deepEqual(usage.choices, []);
  assert.ok(usage.usage.prompt_tokens > 0);
  const deltas = chunks.slice(0, -2).map((c) => c.data.choices[0].delta);
  assert.equal(deltas.map((d) => d.content ?? '').join(''), 'Two tools');
  const args = { 0: '', 1: '' };
  for (const d of deltas) for (const call of d.tool_calls ?? []) args[call.index] += call.function.arguments ?? '';
  assert.deepEqual(JSON.parse(args[0]), { city: 'Oslo' });
  assert.ok(deltas.filter((d) => d.tool_calls?.[0]?.index === 0).length > 3, 'arguments arrive in many fragments');
  assert.equal(chunks.at(-3).data.choices[0].finish_reason, 'tool_calls');
});

test('Anthropic stream: message_start, ping, text and input_json deltas, message_delta, message_stop', async () => {
  await script('an', [{ text: 'Hi', toolCalls: [{ id: 'toolu_1', name: 'look', arguments: { q: 1 } }] }]);
  const res = await post('/s/an/v1/messages', { model: 'claude', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'x' }] });
  const list = events(await res.text());
  assert.deepEqual(
    list.map((e) => e.event),
    [
      'message_start',
      'content_block_start', 'ping', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ],
  );
  const json = list.filter((e) => e.data.delta?.type === 'input_json_delta').map((e) => e.data.delta.partial_json).join('');
  assert.deepEqual(JSON.parse(json), { q: 1 });
  assert.equal(list.at(-2).data.delta.stop_reason, 'tool_use');
});

test('non-streaming answers in both formats', async () => {
  const openai = await (await post('/s/plain/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'ping' }] })).json();
  assert.equal(openai.choices[0].message.content, 'Mock reply to: ping');
  const anthropic = await (await post('/s/plain/v1/messages', { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'pong' }] })).json();
  assert.deepEqual(anthropic.content, [{ type: 'text', text: 'Mock reply to: pong' }]);
  assert.equal(anthropic.stop_reason, 'end_turn');
});

test('faults: status with Retry-After, dropped connection, malformed chunk; requests are recorded', async () => {
  await script('f', [{ fault: { status: 429, retryAfter: 1 } }, { text: 'one two three four', fault: { dropAfterChunks: 2 } }, { text: 'a b', fault: { malformedAt: 1 } }]);
  const limited = await post('/s/f/v1/chat/completions', { model: 'm', messages: [] });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '1');
  const dropped = await post('/s/f/v1/chat/completions', { model: 'm', stream: true, messages: [] });
  await assert.rejects(dropped.text());
  const malformed = await (await post('/s/f/v1/chat/completions', { model: 'm', stream: true, messages: [] })).text();
  assert.match(malformed, /\{broken/);
  const recorded = await (await fetch(`${mock.url}/__mock/f/requests`)).json();
  assert.equal(recorded.length, 3);
  assert.equal(recorded[1].body.stream, true);
});

test('mid-stream error event: Anthropic `event: error` and OpenAI `data: {"error"}` after n chunks', async () => {
  await script('err', [
    { text: 'Partial answer here', fault: { errorEventAfterChunks: 4 } },
    { text: 'a b c', fault: { errorEventAfterChunks: 1, errorType: 'server_error', errorMessage: 'boom' } },
  ]);
  const anthropic = events(
    await (await post('/s/err/v1/messages', { model: 'claude', max_tokens: 9, stream: true, messages: [] })).text(),
  );
  assert.deepEqual(
    anthropic.map((e) => e.event),
    ['message_start', 'content_block_start', 'ping', 'content_block_delta', 'error'],
  );
  assert.equal(anthropic[3].data.delta.text, 'Partial');
  assert.deepEqual(anthropic.at(-1).data, { type: 'error', error: { type: 'overloaded_error', message: 'mock overloaded_error' } });
  const openai = events(await (await post('/s/err/v1/chat/completions', { model: 'm', stream: true, messages: [] })).text());
  assert.equal(openai.length, 2);
  assert.deepEqual(openai.at(-1).data, { error: { message: 'boom', type: 'server_error', code: null } });
});

test('a request whose client gives up before the answer ends is marked closedEarly', async () => {
  await script('gone', [{ text: 'too late', delayMs: 2000 }, { text: 'on time' }]);
  const requests = async () => (await fetch(`${mock.url}/__mock/gone/requests`)).json();
  const controller = new AbortController();
  const aborted = fetch(`${mock.url}/s/gone/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, messages: [] }),
    signal: controller.signal,
  });
  while ((await requests()).length === 0) await new Promise((r) => setTimeout(r, 10));
  controller.abort();
  await assert.rejects(aborted);
  await (await post('/s/gone/v1/chat/completions', { model: 'm', stream: true, messages: [] })).text();
  let recorded = await requests();
  for (let i = 0; i < 50 && !recorded[0].closedEarly; i++) {
    await new Promise((r) => setTimeout(r, 20));
    recorded = await requests();
  }
  assert.deepEqual(recorded.map((r) => r.closedEarly ?? false), [true, false]);
});

test('reasoning: Anthropic signed thinking and redacted blocks, OpenAI reasoning_content or reasoning, streamed and whole', async () => {
  const thinking = { text: 'Answer', reasoning: 'Think first.', signature: 'sig-1', redacted: 'opaque' };
  await script('th', [thinking, thinking]);
  const anthropic = { model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] };
  const streamed = events(await (await post('/s/th/v1/messages', { ...anthropic, stream: true })).text());
  const deltas = streamed.filter((e) => e.data.index === 0 && e.event === 'content_block_delta').map((e) => e.data.delta);
  assert.equal(deltas.filter((d) => d.type === 'thinking_delta').map((d) => d.thinking).join(''), 'Think first.');
  assert.deepEqual(deltas.at(-1), { type: 'signature_delta', signature: 'sig-1' });
  assert.deepEqual(streamed.find((e) => e.data.index === 1).data.content_block, { type: 'redacted_thinking', data: 'opaque' });
  const whole = await (await post('/s/th/v1/messages', anthropic)).json();
  assert.deepEqual(
    whole.content.map((b) => b.type),
    ['thinking', 'redacted_thinking', 'text'],
  );
  assert.equal(whole.content[0].signature, 'sig-1');

  await script('rc', [{ text: 'Four', reasoning: '2+2' }, { text: 'Four', reasoning: '2+2', reasoningField: 'reasoning' }]);
  const openai = { model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] };
  const chunks = events(await (await post('/s/rc/v1/chat/completions', openai)).text());
  const first = chunks.map((c) => c.data.choices?.[0]?.delta).filter((d) => d?.reasoning_content);
  assert.equal(first.map((d) => d.reasoning_content).join(''), '2+2');
  assert.equal(first[0].content, null);
  const answer = await (await post('/s/rc/v1/chat/completions', { ...openai, stream: false })).json();
  assert.equal(answer.choices[0].message.reasoning, '2+2');
  assert.equal(answer.choices[0].message.content, 'Four');
});
