// What each code block of README.md and docs/*.md needs to run, and what it must
// have done: the readme test finds a block by its `marker` (text only that block
// holds), in its `file`. A scene gives the names the block takes from the prose (`given`,
// source run before it in the same module), scripts the mock model session
// (`turns`), may act in Node first (`before`) or on the page after (`drive`),
// and checks what `after` (source run after the block) returned.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { askAndWait, chatOf } from './chat-support.mjs';

/** The scripted `LanguageModel` (tests/js/prompt-api/stand-in.js), as source a scene imports from a blob. */
const PROMPT_API_STAND_IN = readFileSync(new URL('./prompt-api/stand-in.js', import.meta.url), 'utf8');

/** The mock provider of a scene's session, as JS source. */
const mockProvider = (ctx, extra = '') => `{ kind: 'openai', baseUrl: '${ctx.mock}', model: 'mock', apiKey: 'k'${extra} }`;

/** A plain-text book of `pages` pages of about 2,000 characters, as JS source. */
const bookText = (pages) => `Array.from({ length: ${pages} }, (_, p) =>
  Array.from({ length: 18 }, (_, s) => 'On page ' + p + ' Gabriel Syme, the poet detective, met Sunday (' + s + ').').join(' ')).join('\\n\\n')`;

/** A tool named `file` whose runs are counted in `window.fileRuns`. */
const fileTool = `const fileTool = {
  name: 'file',
  description: 'Reads, renames or writes a file',
  parameters: { type: 'object', properties: { mode: { type: 'string' }, path: { type: 'string' }, to: { type: 'string' } }, required: ['mode', 'path'] },
  async execute(args) { (window.fileRuns ??= []).push(args); return { done: true }; },
};`;

/** The widget of an html block answers a question typed into it. */
async function widgetAnswers(page, question, expected) {
  await askAndWait(page, question, 30000);
  const chat = chatOf(page);
  assert.equal(await chat.errors.count(), 0, String(await chat.errors.allTextContents()));
  assert.match(await chat.assistant.last().locator('.body').textContent(), expected);
}

export const SCENES = [
  {
    name: 'Install: the widget with the engine loaded on first use',
    marker: "import 'lectern/chat'; // the chat renders at once",
    file: 'README.md',
    rewrites: (ctx) => [["'http://127.0.0.1:11434/v1'", `'${ctx.mock}'`]],
    turns: [{ text: 'Hello from the model.' }],
    drive: (page) => widgetAnswers(page, 'Hello?', /Hello from the model\./),
  },
  {
    name: 'Use: a tool, send, stream, messages',
    marker: "userId: 'reader-42'",
    file: 'docs/api.md',
    rewrites: (ctx) => [["'http://127.0.0.1:11434/v1'", `'${ctx.mock}'`]],
    given: () => `
      const render = (text) => (window.rendered ??= []).push(text);
      const pageFetch = window.fetch.bind(window);
      window.fetch = (input, init) =>
        String(input).startsWith('/api/weather?city=Oslo') ? Promise.resolve(Response.json({ city: 'Oslo', tempC: 3 })) : pageFetch(input, init);`,
    turns: [
      { toolCalls: [{ id: 'call_w', name: 'weather', arguments: { city: 'Oslo' } }] },
      { text: 'It is 3 °C in Oslo.' },
      { text: 'Tomorrow it snows.' },
    ],
    after: 'return { reply, messages, rendered: window.rendered };',
    check: async (out, ctx) => {
      assert.equal(out.reply.success, true);
      assert.equal(out.reply.text, 'It is 3 °C in Oslo.');
      assert.deepEqual(out.reply.toolCalls.map((c) => c.name), ['weather']);
      assert.equal(out.rendered.join(''), 'Tomorrow it snows.');
      assert.deepEqual(out.messages.map((m) => m.role), ['user', 'assistant', 'tool_result', 'assistant', 'user', 'assistant']);
      const second = (await ctx.requests())[1].body.messages.at(-1);
      assert.deepEqual(JSON.parse(second.content), { city: 'Oslo', tempC: 3 }, 'the tool read the weather');
    },
  },
  {
    name: 'Approvals: a call asked about, approved, run once',
    marker: "delete_document: 'deny'",
    file: 'docs/approvals.md',
    given: (ctx) => `
      const { Lectern } = readme;
      const provider = ${mockProvider(ctx)};
      ${fileTool}
      const docs = await readme.Lectern.open({ dbName: 'docs', provider });
      const conv = await docs.createConversation({ title: 'Docs' });
      await docs.close();
      const askThePerson = async (pending) => {
        window.asked = pending;
        return pending.map(({ callId }) => ({ callId, decision: 'approve' }));
      };
      const render = (text) => { window.rendered = text; };`,
    turns: [
      { toolCalls: [{ id: 'call_f', name: 'file', arguments: { mode: 'rename', path: 'draft.md', to: 'final.md' } }] },
      { text: 'Renamed to final.md.' },
    ],
    after: 'return { asked: window.asked, runs: window.fileRuns, rendered: window.rendered };',
    check: (out) => {
      assert.deepEqual(out.asked.map((p) => [p.toolName, p.arguments]), [['file', { mode: 'rename', path: 'draft.md', to: 'final.md' }]]);
      assert.equal(out.runs.length, 1, 'run once, after the approval');
      assert.equal(out.rendered, 'Renamed to final.md.');
    },
  },
  {
    name: 'Providers: the four kinds open, the custom one answers',
    marker: '// Any OpenAI-compatible server',
    file: 'docs/providers.md',
    given: () => `
      const { Lectern } = readme;
      const apiKey = 'sk-test';
      const engine = { chat: { completions: { create: async (request) => (window.asked = request) && ({
        id: 'c1', object: 'chat.completion', created: 0, model: request.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'From the engine.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      }) } } };`,
    after: `
      for (const provider of [openai, anthropic, quotes]) await (await Lectern.open({ provider })).close();
      const conv = await lectern.createConversation({});
      return { reply: await lectern.send(conv.id, 'Hello?'), asked: window.asked };`,
    check: (out) => {
      assert.equal(out.reply.text, 'From the engine.');
      // The default answer cap reaches the function; its engine keeps its own temperature.
      assert.equal(out.asked.max_tokens, 2048);
      assert.equal('temperature' in out.asked, false);
    },
  },
  {
    name: 'Cancellation: the stop button aborts the turn, which ends aborted',
    marker: 'stopButton.onclick',
    file: 'docs/providers.md',
    given: (ctx) => `
      const lectern = await readme.Lectern.open({ provider: ${mockProvider(ctx, ', stream: true')} });
      const conv = await lectern.createConversation({});
      const stopButton = document.body.appendChild(document.createElement('button'));
      lectern.subscribe((ev) => { if (ev.type === 'textDelta') stopButton.click(); });`,
    turns: [{ text: 'Once upon a time there was a very long story that went on and on.', chunkDelayMs: 150 }],
    after: 'return await lectern.messages(conv.id);',
    check: async (out, ctx) => {
      const answer = out.at(-1);
      assert.equal(answer.role, 'assistant');
      assert.ok(answer.content.length < 'Once upon a time there was a very long story that went on and on.'.length, 'cut off');
      // The server hears the connection close a moment after the page's abort: wait for it.
      let requests = await ctx.requests();
      for (let i = 0; i < 50 && !requests[0].closedEarly; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        requests = await ctx.requests();
      }
      assert.ok(requests[0].closedEarly, 'the request was abandoned');
    },
  },
  {
    name: 'Local model: wllama loads the GGUF with progress, Lectern opens on it',
    marker: 'loadWllamaModel(wllama, ',
    file: 'docs/providers.md',
    needs: ['localModel'],
    rewrites: (ctx) => [["'/models/SmolLM2-135M-Instruct.Q4_1.gguf'", `'${ctx.localModelUrl}'`]],
    given: () => `
      const { Lectern } = readme;
      const bar = { update: (phase) => (window.phases ??= []).push(phase) };`,
    after: 'await ready; return { phases: [...new Set(window.phases)], open: typeof lectern.send };',
    check: (out) => {
      assert.deepEqual(out.phases, ['download', 'load', 'ready']);
      assert.equal(out.open, 'function');
    },
  },
  {
    name: "Local model: Lectern's own decoder answers through localProvider",
    marker: 'localProvider(model, ',
    file: 'docs/providers.md',
    needs: ['localModel'],
    rewrites: (ctx) => [["'/models/SmolLM2-135M-Instruct.Q4_1.gguf'", `'${ctx.localModelUrl}'`]],
    given: () => 'const { Lectern } = readme;',
    after: 'model.close(); return { text: reply.text, usage: reply.usage };',
    check: (out) => {
      assert.match(out.text, /Paris/);
      assert.ok(out.usage.inputTokens > 10, JSON.stringify(out.usage));
    },
  },
  {
    name: 'Books: add, page, converse, search to the page, delete',
    marker: "title: 'The Man Who Was Thursday', author",
    file: 'docs/books.md',
    given: (ctx) => `
      const lectern = await readme.Lectern.open({ provider: ${mockProvider(ctx)} });
      const text = ${bookText(60)};
      const bar = { update: (phase) => (window.phases ??= []).push(phase) };
      const signal = new AbortController().signal;`,
    turns: [
      { toolCalls: [{ id: 'call_s', name: 'search_book', arguments: { query: 'Gabriel Syme' } }] },
      { text: 'A poet who is a detective.' },
    ],
    after: 'return { book, page, hits, phases: window.phases, left: await lectern.books() };',
    check: async (out, ctx) => {
      assert.ok(out.book.pageCount >= 43, `${out.book.pageCount} pages`);
      assert.match(out.page.text, /On page \d+ Gabriel Syme/);
      assert.ok(out.phases.length > 0, 'progress reported');
      assert.equal(out.hits.length, 5);
      assert.ok(out.hits.every((h) => h.endPage <= 42), 'nothing past the reader’s page');
      assert.deepEqual(out.left, []);
      const toolResult = (await ctx.requests())[1].body.messages.at(-1).content;
      assert.match(toolResult, /Gabriel Syme/);
    },
  },
  {
    name: 'Sources: an answer lists the passages it stands on',
    marker: 'reply.sources',
    file: 'docs/books.md',
    given: (ctx) => `
      const lectern = await readme.Lectern.open({ provider: ${mockProvider(ctx)} });
      const book = await lectern.addBook({ title: 'Thursday', text: ${bookText(3)} + '\\n\\nGregory is an anarchist poet who believes in bombs.' });
      const conv = await lectern.createConversation({ bookId: book.id });
      await lectern.setCurrentPage(book.id, book.pageCount);
      const logged = [];
      console.log = (...args) => logged.push(args.join(' '));`,
    turns: [
      { toolCalls: [{ id: 'call_s', name: 'search_book', arguments: { query: 'Gregory anarchist poet' } }] },
      { text: 'Gregory is an anarchist poet who believes in bombs.' },
    ],
    after: 'return { sources: reply.sources, logged, check: reply.sourceCheck };',
    check: (out) => {
      assert.ok(out.sources.some((s) => /Gregory is an anarchist poet/.test(s.text)), JSON.stringify(out.sources));
      assert.equal(out.logged.length, out.sources.length);
      assert.match(out.logged[0], /^p\. \d+–\d+ \(/);
    },
  },
  {
    name: 'Offline reading site: a shipped book imported once, MiniLM and the local model',
    marker: 'SHIPPED_ID',
    file: 'docs/books.md',
    needs: ['localModel', 'minilm'],
    given: (ctx) => `
      import { Wllama } from '${ctx.origin}/wllama/index.js';
      import { loadWllamaModel, wllamaProvider } from '${ctx.origin}/pkg/lectern_wllama.js';
      const { Lectern } = readme;
      const wllama = new Wllama({ default: '/wllama/wasm/wllama.wasm' });
      wllama.setCompat?.(null);
      const ready = loadWllamaModel(wllama, '${ctx.localModelUrl}', { n_ctx: 2048, n_threads: 1 });
      const embedder = { kind: 'minilm', modelUrl: '/models/model.safetensors', vocabUrl: '/models/vocab.txt' };
      const maker = await Lectern.open({ dbName: 'maker', embedder, provider: ${mockProvider(ctx)} });
      const made = await maker.addBook({ title: 'Thursday', text: ${bookText(4)} });
      const shipped = await maker.exportBook(made.id);
      await maker.close();
      const SHIPPED_ID = made.id;
      const pageFetch = window.fetch.bind(window);
      window.fetch = (input, init) =>
        input === '/books/thursday.lectern' ? Promise.resolve(new Response(shipped)) : pageFetch(input, init);`,
    after: `
      await ready;
      return { books: (await lectern.books()).map((b) => b.id), id: SHIPPED_ID, hits: await lectern.search('the poet detective', { k: 3 }) };`,
    check: (out) => {
      assert.deepEqual(out.books, [out.id]);
      assert.equal(out.hits.length, 3);
    },
  },
  {
    name: 'Replay: a recorded turn yields its events again',
    marker: 'lectern.recordedTurns(conversationId)',
    file: 'docs/api.md',
    given: (ctx) => `
      const lectern = await readme.Lectern.open({ provider: ${mockProvider(ctx, ', stream: true')}, recordEvents: true });
      const conversationId = (await lectern.createConversation({})).id;
      const live = [];
      for await (const ev of lectern.stream(conversationId, 'Hello?')) live.push(ev.type);
      const replayed = [];
      const render = (event) => replayed.push(event.type);`,
    turns: [{ text: 'Hello back.' }],
    after: 'return { live, replayed };',
    check: (out) => {
      assert.ok(out.replayed.includes('finish'), out.replayed.join());
      assert.deepEqual(out.replayed, out.live);
    },
  },
  {
    name: 'Interrupted turns: a turn cut off by a closed tab is resumed',
    marker: 'lectern.interruptedTurns()',
    file: 'docs/api.md',
    before: async (ctx) => {
      const tab = await ctx.context.newPage();
      await tab.goto(`${ctx.origin}/blank`);
      await tab.evaluate(async ({ provider }) => {
        const { default: init, Lectern } = await import('/pkg/lectern.js');
        await init();
        const lectern = await Lectern.open({ dbName: 'resumed', provider });
        lectern.registerTool({ name: 'lookup', description: 'Looks it up', parameters: { type: 'object', properties: {} }, readOnly: true, execute: async () => ({ found: 'under the mat' }) });
        const { id } = await lectern.createConversation({});
        lectern.send(id, 'Where is the key?').catch(() => {});
      }, { provider: { kind: 'openai', baseUrl: ctx.mock, model: 'mock', apiKey: 'k' } });
      for (let i = 0; i < 100 && (await ctx.requests()).length < 2; i += 1) await new Promise((r) => setTimeout(r, 100));
      await tab.close();
    },
    turns: [
      { toolCalls: [{ id: 'call_l', name: 'lookup', arguments: {} }] },
      { text: 'never read: the tab closes first', delayMs: 8000 },
      { text: 'The key is under the mat.' },
    ],
    given: (ctx) => `const lectern = await readme.Lectern.open({ dbName: 'resumed', provider: ${mockProvider(ctx)} });
      const [cutOff] = await lectern.interruptedTurns();`,
    after: 'return { cutOff, left: await lectern.interruptedTurns(), messages: await lectern.messages(cutOff.conversationId) };',
    check: (out) => {
      assert.equal(out.cutOff.completedToolCalls, 1);
      assert.deepEqual(out.left, []);
      assert.equal(out.messages.at(-1).content, 'The key is under the mat.');
    },
  },
  {
    name: 'Structured output: the parsed answer as data',
    marker: "name: 'city_weather'",
    file: 'docs/api.md',
    given: (ctx) => `
      const lectern = await readme.Lectern.open({ provider: ${mockProvider(ctx)} });
      const { id } = await lectern.createConversation({});`,
    turns: [{ text: '{"city": "Tromsø", "temperatureC": -4}' }],
    after: 'return data;',
    check: (out) => assert.deepEqual(out, { city: 'Tromsø', temperatureC: -4 }),
  },
  {
    name: 'Lazy engine: the widget given an open Lectern on a same-origin baseUrl',
    marker: 'defines <lectern-chat> (unless the page already did)',
    file: 'docs/widget.md',
    // baseUrl '/v1': the demo server forwards it to the mock's default session, which echoes.
    drive: (page) => widgetAnswers(page, 'Echo this, please.', /Echo this, please\./),
  },
  {
    name: "The browser's own model: downloaded from a click, then asked",
    marker: "'Asked in the browser'",
    file: 'docs/providers.md',
    given: () => `
      const standInUrl = URL.createObjectURL(new Blob([${JSON.stringify(PROMPT_API_STAND_IN)}], { type: 'text/javascript' }));
      const standIn = (window.standIn = (await import(standInUrl)).installPromptApiStandIn(globalThis, { availability: 'downloadable' }));
      standIn.script('Gabriel Syme is a poet and a detective.');
      const downloadButton = document.body.appendChild(Object.assign(document.createElement('button'), { id: 'download', textContent: 'Download' }));
      const bar = document.body.appendChild(document.createElement('progress'));
      const show = (text) => (window.shown ??= []).push(text);`,
    after: 'return { state, shown: window.shown ?? null };',
    check: (out) => assert.deepEqual(out, { state: 'downloadable', shown: null }),
    drive: async (page) => {
      await page.click('#download');
      await page.waitForFunction(() => window.shown?.length === 1, null, { timeout: 15000 });
      const seen = await page.evaluate(() => ({
        shown: window.shown,
        bar: document.querySelector('progress').value,
        creates: window.standIn.calls.filter((c) => c.method === 'create').map((c) => [c.activation, c.outcome]),
      }));
      assert.deepEqual(seen.shown, ['Gabriel Syme is a poet and a detective.']);
      assert.equal(seen.bar, 1);
      assert.deepEqual(seen.creates[0], [true, 'created'], 'the download, in the click');
      assert.equal(seen.creates.length, 2, "then the conversation's session");
    },
  },
];
