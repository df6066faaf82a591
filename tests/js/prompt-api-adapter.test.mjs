// lectern/prompt-api (pkg/lectern_prompt_api.js) in Node against the scripted stand-in LanguageModel
// (tests/js/prompt-api/stand-in.js): availability, the download's user-activation rule and progress,
// Lectern's request as initialPrompts and a question, one base session per conversation with a clone
// per question, streamed pieces kept as they come, abort, the context-window check, quota errors,
// context overflow, cited answers, the older API names, and an unavailable model.
// In a browser page, through Lectern: prompt-api.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { installPromptApiStandIn } from './prompt-api/stand-in.js';

const built = existsSync(new URL('../../pkg/lectern_prompt_api.js', import.meta.url));
const skip = built ? false : 'SKIPPED: no pkg/ (bash scripts/build.sh)';
if (skip) console.log(skip);
const adapter = built ? await import('lectern/prompt-api') : null;

async function collect(iterable) {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
}

const SYSTEM = 'You answer from the passages.\n[1] Syme is a poet.\n[2] Gregory is a poet too.';
const ask = (question, earlier = [], extra = {}) => ({
  model: 'prompt-api',
  messages: [{ role: 'system', content: SYSTEM }, ...earlier, { role: 'user', content: question }],
  stream: true,
  ...extra,
});
const contents = (chunks) => chunks.map((c) => c.choices[0]?.delta.content).filter((c) => c !== undefined);

test('the provider is a local custom provider; bad options throw TypeError at once', { skip }, () => {
  const provider = adapter.promptApiProvider({ timeouts: { idleMs: 5000 } });
  assert.equal(provider.kind, 'custom');
  assert.equal(provider.local, true);
  assert.equal(provider.model, 'prompt-api');
  assert.equal(provider.stream, true);
  assert.deepEqual(provider.timeouts, { idleMs: 5000 });
  assert.equal(typeof provider.destroy, 'function');
  assert.ok(!Object.keys(provider).includes('destroy'), 'destroy is not enumerable: Lectern.open never sees it');
  assert.equal(adapter.promptApiProvider({ model: 'nano', stream: false }).stream, false);
  for (const bad of [null, { model: '' }, { stream: 'yes' }, { cited: 1 }, { onContextOverflow: 'log' }, { keepSessions: 0 }]) {
    assert.throws(() => adapter.promptApiProvider(bad), TypeError, JSON.stringify(bad));
  }
});

test("availability is the API's answer, and 'unavailable' without the API", { skip }, async () => {
  delete globalThis.LanguageModel;
  assert.equal(await adapter.promptApiAvailability(), 'unavailable');
  const standIn = installPromptApiStandIn(globalThis, { languages: ['en'] });
  for (const state of ['unavailable', 'downloadable', 'downloading', 'available']) {
    standIn.availability = state;
    assert.equal(await adapter.promptApiAvailability(), state);
  }
  const japanese = { expectedInputs: [{ type: 'text', languages: ['ja'] }] };
  assert.equal(await adapter.promptApiAvailability(japanese), 'unavailable', 'the options reach availability()');
  assert.deepEqual(standIn.calls.at(-1).options, japanese);
});

test('the download needs a user gesture; with one it reports progress from 0 to 1', { skip }, async () => {
  const standIn = installPromptApiStandIn(globalThis, { availability: 'downloadable' });
  const seen = [];
  const refused = await adapter.downloadPromptApiModel({ onProgress: (p) => seen.push(p.loaded) }).catch((e) => e);
  assert.equal(refused.name, 'PromptApiError');
  assert.equal(refused.code, 'needs-user-activation');
  assert.equal(refused.cause.name, 'NotAllowedError');
  assert.match(refused.message, /click/);
  assert.equal(standIn.availability, 'downloadable', 'nothing was downloaded');
  assert.deepEqual(seen, []);

  standIn.userActivation = true; // the click
  const done = adapter.downloadPromptApiModel({ onProgress: (p) => seen.push(p.loaded) });
  standIn.userActivation = false; // the activation is read when create() is called, not later
  await done;
  assert.deepEqual(seen, [0, 0.25, 0.5, 0.75, 1]);
  assert.equal(standIn.availability, 'available');
  assert.equal(standIn.sessions.length, 1);
  assert.equal(standIn.sessions[0].destroyed, true, 'the download session is not kept');

  seen.length = 0;
  await adapter.downloadPromptApiModel({ onProgress: (p) => seen.push(p.loaded) });
  assert.deepEqual(seen, [0, 1], 'with nothing to download, 0 and 1');
  await assert.rejects(adapter.downloadPromptApiModel({ onProgress: 5 }), TypeError);
  delete globalThis.LanguageModel;
  await assert.rejects(adapter.downloadPromptApiModel(), { name: 'PromptApiError', code: 'unavailable' });
});

test('pieces stream as they come: concatenated, repeated ones kept, then the finish with usage', { skip }, async () => {
  const standIn = installPromptApiStandIn(globalThis);
  standIn.script(['Syme ', 'is ', 'a ', 're', 'pe', 'at', 'at', 'at', '.']);
  const provider = adapter.promptApiProvider();
  const chunks = await collect(await provider.call(ask('Who is Syme?'), { signal: new AbortController().signal }));
  const text = contents(chunks).join('');
  assert.deepEqual(contents(chunks), ['Syme ', 'is ', 'a ', 're', 'pe', 'at', 'at', 'at', '.', undefined].filter(Boolean));
  assert.equal(text, 'Syme is a repeatatat.', 'each piece is new text, not the answer so far');
  const last = chunks.at(-1);
  assert.deepEqual(last.choices, [{ index: 0, delta: {}, finish_reason: 'stop' }]);
  const [base, clone] = standIn.sessions;
  // What the session held (the system message) and what the question measured.
  const prompt = base.session.contextUsage + Math.ceil('Who is Syme?'.length / 4) + 2;
  assert.deepEqual(last.usage, {
    prompt_tokens: prompt,
    completion_tokens: Math.ceil(text.length / 4),
    total_tokens: prompt + Math.ceil(text.length / 4),
  });
  assert.ok(prompt > Math.ceil(SYSTEM.length / 4), 'prompt tokens count the system message and the question');
  assert.equal(base.prompts.length, 0, 'the base session is never prompted');
  assert.equal(clone.parent, base.id);
  assert.equal(clone.prompts[0].input, 'Who is Syme?');
  assert.equal(clone.prompts[0].streaming, true);
  assert.equal(clone.destroyed, true, 'the clone is destroyed after the answer');
  assert.equal(base.destroyed, false);
});

test("Lectern's request: the system message and earlier turns start the session, tools and tool turns left out", { skip }, async () => {
  const standIn = installPromptApiStandIn(globalThis);
  const earlier = [
    { role: 'user', content: 'Who is Syme?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_book', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'Syme is a poet.' },
    { role: 'assistant', content: 'A poet.' },
  ];
  const tools = [{ type: 'function', function: { name: 'search_book', description: 'd', parameters: { type: 'object' } } }];
  await collect(await adapter.promptApiProvider().call(ask('And Gregory?', earlier, { tools, tool_choice: 'auto' }), {}));
  const create = standIn.calls.find((c) => c.method === 'create');
  assert.deepEqual(create.options.initialPrompts, [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: 'Who is Syme?' },
    { role: 'assistant', content: 'A poet.' },
  ]);
  assert.deepEqual(Object.keys(create.options).sort(), ['initialPrompts']);
  assert.equal(standIn.sessions[1].prompts[0].input, 'And Gregory?');
  await assert.rejects(adapter.promptApiProvider().call({ messages: [{ role: 'system', content: 's' }], stream: true }, {}), TypeError);
});

test('one base session per conversation, a clone per question; the least recently used base is closed', { skip }, async () => {
  const standIn = installPromptApiStandIn(globalThis);
  const provider = adapter.promptApiProvider({ keepSessions: 1 });
  await collect(await provider.call(ask('Who is Syme?'), {}));
  await collect(await provider.call(ask('Who is Syme?'), {})); // a retry: the same conversation
  const parents = standIn.sessions.filter((s) => s.parent !== null);
  const bases = standIn.sessions.filter((s) => s.parent === null);
  assert.equal(bases.length, 1, 'one base session');
  assert.equal(parents.length, 2, 'two clones');
  assert.ok(parents.every((s) => s.parent === bases[0].id && s.destroyed));
  await collect(await provider.call(ask('And Gregory?', [{ role: 'user', content: 'Who is Syme?' }, { role: 'assistant', content: 'A poet.' }]), {}));
  const next = standIn.sessions.filter((s) => s.parent === null);
  assert.equal(next.length, 2, 'the next turn is another conversation state: a new base');
  assert.equal(bases[0].destroyed, true, 'keepSessions: 1 closed the older base');
  provider.destroy();
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(standIn.sessions.every((s) => s.destroyed), 'destroy() closed the open base');
});

test('stream: false asks prompt() and answers one completion', { skip }, async () => {
  const standIn = installPromptApiStandIn(globalThis);
  standIn.script(['Gregory ', 'is ', 'a ', 'poet.']);
  const answer = await adapter.promptApiProvider({ stream: false }).call(ask('Who is Gregory?', [], { stream: false }), {});
  assert.equal(answer.choices[0].message.content, 'Gregory is a poet.');
  assert.equal(answer.choices[0].finish_reason, 'stop');
  assert.equal(answer.usage.completion_tokens, 5);
  assert.equal(standIn.sessions[1].prompts[0].streaming, false);
  assert.equal(standIn.sessions[1].destroyed, true);
});

test("the call's abort signal reaches the prompt: the answer stops and the clone is destroyed", { skip }, async () => {
  const standIn = installPromptApiStandIn(globalThis, { stepMs: 20 });
  standIn.script(Array.from({ length: 50 }, (_, i) => `w${i} `));
  const controller = new AbortController();
  const chunks = [];
  const failure = await (async () => {
    for await (const chunk of await adapter.promptApiProvider().call(ask('Tell me a long story'), { signal: controller.signal })) {
      chunks.push(chunk);
      if (chunks.length === 3) controller.abort(new DOMException('stopped', 'AbortError'));
    }
  })().catch((e) => e);
  assert.equal(failure?.name, 'AbortError');
  assert.equal(chunks.length, 3);
  const prompt = standIn.sessions[1].prompts[0];
  assert.equal(prompt.signal, controller.signal, 'the call signal is the prompt call signal');
  assert.equal(prompt.outcome, 'aborted');
  assert.equal(standIn.sessions[1].destroyed, true);
  // An answer given up before it was read (Lectern aborts the call's signal): its clone is destroyed too.
  const dropped = new AbortController();
  await adapter.promptApiProvider().call(ask('Never read'), { signal: dropped.signal });
  dropped.abort();
  assert.equal(standIn.sessions.at(-1).destroyed, true);
  assert.equal(standIn.sessions.at(-1).prompts.length, 0);
  const before = standIn.sessions.length;
  await assert.rejects(adapter.promptApiProvider().call(ask('Again'), { signal: AbortSignal.abort() }), { name: 'AbortError' });
  assert.equal(standIn.sessions.length, before, 'an aborted call makes no session');
});

test('a question the session cannot take is refused before prompting, saying what was measured', { skip }, async () => {
  const standIn = installPromptApiStandIn(globalThis, { contextWindow: 60 });
  const question = 'Why? '.repeat(40);
  const error = await adapter.promptApiProvider().call(ask(question), {}).catch((e) => e);
  assert.equal(error.name, 'PromptApiError');
  assert.equal(error.code, 'too-long');
  const clone = standIn.sessions[1];
  assert.equal(error.requested, Math.ceil(question.length / 4) + 2, 'measureContextUsage of the question');
  assert.equal(error.available, 60 - clone.session.contextUsage);
  assert.match(error.message, new RegExp(`needs ${error.requested} tokens .*measureContextUsage.* has ${error.available} of 60 left`));
  assert.equal(clone.prompts.length, 0, 'nothing was sent');
  assert.equal(clone.destroyed, true);
});

test("the API's QuotaExceededError is reported as one, saying so", { skip }, async () => {
  // measureContextUsage under-reports here, so only the prompt itself finds it too long.
  const standIn = installPromptApiStandIn(globalThis, { contextWindow: 60, measureScale: 0.1 });
  const error = await collect(await adapter.promptApiProvider().call(ask('Why? '.repeat(40)), {})).catch((e) => e);
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'QuotaExceededError');
  assert.match(error.message, /QuotaExceededError: 52 tokens, \d+ available/);
  assert.equal(error.requested, 52);
  assert.equal(standIn.sessions[1].prompts[0].outcome, 'QuotaExceededError');
  // A system message longer than the whole window: create() refuses it.
  const long = { messages: [{ role: 'system', content: 'x'.repeat(400) }, { role: 'user', content: 'Hi' }], stream: true };
  await assert.rejects(adapter.promptApiProvider().call(long, {}), { name: 'QuotaExceededError', message: /QuotaExceededError/ });
});

test('a context overflow while answering reaches onContextOverflow', { skip }, async () => {
  const standIn = installPromptApiStandIn(globalThis, { contextWindow: 80 });
  standIn.script(Array.from({ length: 30 }, () => 'more words '));
  const heard = [];
  const provider = adapter.promptApiProvider({ onContextOverflow: (state) => heard.push(state) });
  const chunks = await collect(await provider.call(ask('Go on.'), {}));
  assert.equal(contents(chunks).join(''), 'more words '.repeat(30));
  assert.ok(heard.length >= 1);
  assert.deepEqual(heard[0], { contextUsage: 80, contextWindow: 80 });
});

test('the older names (measureInputUsage, inputUsage, inputQuota, quotaoverflow) work too', { skip }, async () => {
  const standIn = installPromptApiStandIn(globalThis, { legacy: true, contextWindow: 80 });
  standIn.script(Array.from({ length: 30 }, () => 'more words '));
  const heard = [];
  const provider = adapter.promptApiProvider({ onContextOverflow: (state) => heard.push(state) });
  const chunks = await collect(await provider.call(ask('Go on.'), {}));
  assert.ok(!('contextUsage' in standIn.sessions[1].session), 'only the older names here');
  assert.deepEqual(heard[0], { contextUsage: 80, contextWindow: 80 });
  assert.ok(chunks.at(-1).usage.prompt_tokens > Math.ceil(SYSTEM.length / 4), 'measured with measureInputUsage');
  const error = await provider.call(ask('Why? '.repeat(80)), {}).catch((e) => e);
  assert.equal(error.code, 'too-long', 'measured with measureInputUsage against inputQuota - inputUsage');
  assert.equal(error.requested, 102);
});

test('cited: the JSON answer becomes the text and its passages [n]', { skip }, async () => {
  const standIn = installPromptApiStandIn(globalThis);
  standIn.script({ json: { answer: 'Gregory is a poet. ', passages: [2, 2, 0, 1.5] } });
  const chunks = await collect(await adapter.promptApiProvider({ cited: true }).call(ask('Who is Gregory?'), {}));
  assert.deepEqual(contents(chunks), ['Gregory is a poet. [2]']);
  const prompt = standIn.sessions[1].prompts[0];
  assert.deepEqual(prompt.responseConstraint, adapter.CITED_SCHEMA);
  assert.deepEqual(adapter.CITED_SCHEMA.required, ['answer', 'passages']);
  const system = standIn.calls.find((c) => c.method === 'create').options.initialPrompts[0].content;
  assert.ok(system.startsWith(SYSTEM) && /"passages" the numbers of the passages/.test(system), system);
  standIn.script({ json: { answer: 'Syme.', passages: [1] } });
  const whole = await adapter.promptApiProvider({ cited: true, stream: false }).call(ask('Who?', [], { stream: false }), {});
  assert.equal(whole.choices[0].message.content, 'Syme. [1]');
  // An answer cut short is not the JSON asked for.
  standIn.script({ json: { answer: 'x', passages: [] }, pieces: ['{"answer": "x"'] });
  await assert.rejects(
    collect(await adapter.promptApiProvider({ cited: true }).call(ask('Who?'), {})),
    { name: 'PromptApiError', code: 'bad-answer' },
  );
});

test("send's responseSchema (response_format) is the prompt's responseConstraint, its JSON passed on", { skip }, async () => {
  const standIn = installPromptApiStandIn(globalThis);
  const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
  standIn.script({ json: { name: 'Syme' } });
  const request = ask('Name him.', [], { response_format: { type: 'json_schema', json_schema: { name: 'r', schema, strict: true } } });
  const chunks = await collect(await adapter.promptApiProvider({ cited: true }).call(request, {}));
  assert.deepEqual(JSON.parse(contents(chunks).join('')), { name: 'Syme' });
  assert.deepEqual(standIn.sessions[1].prompts[0].responseConstraint, schema);
});

test("an unavailable or undownloaded model fails the call, saying so", { skip }, async () => {
  const provider = adapter.promptApiProvider();
  delete globalThis.LanguageModel;
  await assert.rejects(provider.call(ask('Hi'), {}), { name: 'PromptApiError', code: 'unavailable', message: /^The browser's model is unavailable/ });
  const standIn = installPromptApiStandIn(globalThis, { availability: 'unavailable' });
  await assert.rejects(provider.call(ask('Hi'), {}), { code: 'unavailable', message: /unavailable.*availability\(\) answered 'unavailable'/ });
  standIn.availability = 'downloadable';
  await assert.rejects(provider.call(ask('Hi'), {}), { code: 'needs-download', message: /downloadPromptApiModel/ });
  assert.equal(standIn.sessions.length, 0);
  assert.equal(standIn.availability, 'downloadable', 'a call never starts the download');
});
