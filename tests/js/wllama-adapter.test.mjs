// The wllama adapter (`lectern/wllama`, pkg/lectern_wllama.js) in Node against a stand-in wllama that
// records what it was asked: the request Lectern sends becomes wllama's chat-completion parameters
// (messages, tools, sampling, the abort signal), chunks stream through, usage comes from wllama's
// timings when it reports none, calls wait for `ready`, and loading reports its progress.
// The real wllama, in Chromium, is in offline.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

const built = existsSync(new URL('../../pkg/lectern_wllama.js', import.meta.url));
const skip = built ? false : 'SKIPPED: no pkg/ (bash scripts/build.sh)';
if (skip) console.log(skip);
const adapter = built ? await import('lectern/wllama') : null;

/** A stand-in for a Wllama instance: answers with `chunks` (streamed) or `completion`. */
function fakeWllama({ chunks = [], completion = null } = {}) {
  const asked = [];
  return {
    asked,
    async createCompletion(params) {
      asked.push(params);
      if (!params.stream) return completion;
      return (async function* () {
        for (const chunk of chunks) yield chunk;
      })();
    },
    async createChatCompletion(params) {
      asked.push(params);
      if (!params.stream) return completion;
      return (async function* () {
        for (const chunk of chunks) yield chunk;
      })();
    },
    async loadModelFromUrl(url, params) {
      asked.push({ url, params });
      params.progressCallback({ loaded: 50, total: 100 });
      params.progressCallback({ loaded: 100, total: 100 });
    },
  };
}

const delta = (content) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const timings = { cache_n: 2, prompt_n: 60, predicted_n: 3 };

async function collect(iterable) {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
}

test('the provider is a local custom provider; policy options pass through', { skip }, () => {
  const provider = adapter.wllamaProvider(fakeWllama(), { model: 'smollm2', timeouts: { idleMs: 5000 } });
  assert.equal(provider.kind, 'custom');
  assert.equal(provider.local, true);
  assert.equal(provider.model, 'smollm2');
  assert.equal(provider.stream, true);
  assert.equal(provider.maxTokens, 256, 'the cap is the provider\'s, so Lectern sends it (its own default is 2048)');
  assert.equal(adapter.wllamaProvider(fakeWllama(), { maxTokens: 64 }).maxTokens, 64);
  assert.deepEqual(provider.timeouts, { idleMs: 5000 });
  assert.equal(typeof provider.call, 'function');
  assert.throws(() => adapter.wllamaProvider({}), /needs a Wllama instance/);
});

test("Lectern's request becomes wllama's parameters, and the stream ends with usage from timings", { skip }, async () => {
  const wllama = fakeWllama({ chunks: [delta('Sy'), delta('me.'), { ...delta(''), timings }] });
  const provider = adapter.wllamaProvider(wllama, { maxTokens: 40, sampling: { top_k: 20 } });
  const signal = new AbortController().signal;
  const tools = [{ type: 'function', function: { name: 'search_book', description: 'd', parameters: { type: 'object' } } }];
  const request = {
    model: 'wllama',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_book', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'No relevant passages found.' },
    ],
    tools,
    tool_choice: 'auto',
    temperature: 0.2,
    stream: true,
    stream_options: { include_usage: true },
  };
  const chunks = await collect(await provider.call(request, { signal }));
  const params = wllama.asked[0];
  assert.equal(params.abortSignal, signal);
  assert.equal(params.stream, true);
  assert.equal(params.max_tokens, 40, 'maxTokens when Lectern sets none');
  assert.equal(params.top_k, 20);
  assert.equal(params.temperature, 0.2);
  assert.deepEqual(params.tools, tools);
  assert.equal(params.tool_choice, 'auto');
  assert.equal(params.messages[1].content, '', 'wllama gets text, not null');
  assert.deepEqual(params.messages[1].tool_calls, request.messages[1].tool_calls);
  assert.equal(chunks.length, 4);
  assert.deepEqual(chunks.at(-1), {
    choices: [],
    usage: { prompt_tokens: 62, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 2 } },
  });
});

test('without maxTokens an answer is capped at DEFAULT_MAX_TOKENS; Lectern\'s own max_tokens wins', { skip }, async () => {
  const wllama = fakeWllama({ chunks: [delta('Hi.'), { ...delta(''), timings }] });
  const provider = adapter.wllamaProvider(wllama);
  const request = { model: 'wllama', messages: [{ role: 'user', content: 'Hi' }], stream: true };
  await collect(await provider.call(request, {}));
  assert.equal(adapter.DEFAULT_MAX_TOKENS, 256);
  assert.equal(wllama.asked[0].max_tokens, 256);
  await collect(await provider.call({ ...request, max_tokens: 30 }, {}));
  assert.equal(wllama.asked[1].max_tokens, 30);
});

test('usage wllama reports itself is kept, and no usage is made up without timings', { skip }, async () => {
  const usage = { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 };
  const reported = await collect(
    await adapter.wllamaProvider(fakeWllama({ chunks: [delta('a'), { choices: [], usage, timings }] })).call(
      { messages: [], stream: true, max_tokens: 5 },
      {},
    ),
  );
  assert.equal(reported.length, 2);
  const bare = await collect(
    await adapter.wllamaProvider(fakeWllama({ chunks: [delta('a')] })).call({ messages: [], stream: true }, {}),
  );
  assert.equal(bare.length, 1, 'Lectern estimates the usage then');
});

test('a whole answer gets its usage from timings too; calls wait for ready', { skip }, async () => {
  let loaded = false;
  const ready = new Promise((resolve) => setTimeout(() => resolve((loaded = true)), 20));
  const completion = {
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hi.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    timings,
  };
  const wllama = fakeWllama({ completion });
  const provider = adapter.wllamaProvider(wllama, { stream: false, ready });
  const answer = await provider.call({ messages: [{ role: 'user', content: 'Hi' }], stream: false }, {});
  assert.ok(loaded, 'the call waited for the model');
  assert.equal(wllama.asked[0].stream, false);
  assert.deepEqual(answer.usage.prompt_tokens, 62);
  assert.equal(answer.choices[0].message.content, 'Hi.');
});

test('loadWllamaModel reports download, load and ready, and passes the load parameters', { skip }, async () => {
  const wllama = fakeWllama();
  const seen = [];
  await adapter.loadWllamaModel(wllama, '/models/m.gguf', { n_ctx: 1024, n_threads: 1, onProgress: (p) => seen.push(p) });
  assert.equal(wllama.asked[0].url, '/models/m.gguf');
  assert.equal(wllama.asked[0].params.n_ctx, 1024);
  assert.equal(wllama.asked[0].params.n_threads, 1);
  assert.equal(wllama.asked[0].params.onProgress, undefined);
  assert.deepEqual(seen.slice(0, 3), [
    { phase: 'download', loaded: 50, total: 100 },
    { phase: 'download', loaded: 100, total: 100 },
    { phase: 'load' },
  ]);
  assert.equal(seen[3].phase, 'ready');
  assert.ok(seen[3].loadMs >= 0);
});

const text = (piece, finish = null) => ({ object: 'text_completion', choices: [{ index: 0, text: piece, finish_reason: finish, logprobs: null }] });

test('a base model in completion form: the conversation as Question/Answer text, streamed back as chat chunks', { skip }, async () => {
  const wllama = fakeWllama({ chunks: [text(' Gregory'), text(' is an anarchist.'), { ...text('', 'stop'), timings }] });
  const provider = adapter.wllamaProvider(wllama, { completion: true, maxTokens: 60 });
  const signal = new AbortController().signal;
  const request = {
    messages: [
      { role: 'system', content: 'Answer from the passages.\n[Pages 31-32] Gregory spoke.' },
      { role: 'user', content: 'Who is Syme?' },
      { role: 'assistant', content: 'A poet.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'x', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'left out' },
      { role: 'user', content: 'Who is Gregory?' },
    ],
    tools: [{ type: 'function', function: { name: 'x', parameters: {} } }],
    temperature: 0,
    stream: true,
  };
  const chunks = await collect(await provider.call(request, { signal }));
  const params = wllama.asked[0];
  assert.equal(
    params.prompt,
    'Answer from the passages.\n[Pages 31-32] Gregory spoke.\n\nQuestion: Who is Syme?\nAnswer: A poet.\n\nQuestion: Who is Gregory?\nAnswer:',
  );
  assert.deepEqual(params.stop, ['\nQuestion:', '\n\n']);
  assert.equal(params.tools, undefined, 'no tools in completion form');
  assert.equal(params.abortSignal, signal);
  assert.equal(params.max_tokens, 60);
  assert.equal(params.temperature, 0);
  assert.deepEqual(chunks.slice(0, 3).map((c) => c.choices[0].delta.content), ['Gregory', ' is an anarchist.', '']);
  assert.equal(chunks[2].choices[0].finish_reason, 'stop');
  assert.equal(chunks.at(-1).usage.prompt_tokens, 62, 'usage from timings');
});

test('completion form: a whole answer, a form of the host, and bad options', { skip }, async () => {
  const completion = { object: 'text_completion', choices: [{ index: 0, text: ' Syme. ', finish_reason: 'stop', logprobs: null }], timings };
  const wllama = fakeWllama({ completion });
  const form = (messages) => ({ prompt: `Q: ${messages.at(-1).content}\nA:`, stop: ['\nQ:'] });
  const answer = await adapter.wllamaProvider(wllama, { completion: form, stream: false }).call(
    { messages: [{ role: 'user', content: 'Who?' }], stream: false },
    {},
  );
  assert.equal(wllama.asked[0].prompt, 'Q: Who?\nA:');
  assert.deepEqual(answer.choices[0].message, { role: 'assistant', content: 'Syme.' });
  assert.equal(answer.usage.completion_tokens, 3);
  assert.throws(() => adapter.wllamaProvider(wllama, { completion: 'yes' }), /`completion` is true or a function/);
  const chatOnly = { createChatCompletion: async () => null, loadModelFromUrl: async () => {} };
  assert.throws(() => adapter.wllamaProvider(chatOnly, { completion: true }), /needs a Wllama instance with createCompletion/);
  assert.deepEqual(adapter.completionPrompt([{ role: 'user', content: 'Hi' }]), { prompt: 'Question: Hi\nAnswer:', stop: ['\nQuestion:', '\n\n'] });
});
