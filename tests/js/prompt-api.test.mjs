// lectern/prompt-api in a browser, through Lectern (the built pkg/): tests/js/prompt-api/page.html
// with the scripted LanguageModel (tests/js/prompt-api/stand-in.js) installed before the page's own
// work. A message's answer streams in piece by piece, repeated pieces kept, from a clone of the
// conversation's session; Stop's abort reaches the prompt; the download asked for without a user
// gesture is refused, and a real click starts it with its progress. Without the stand-in, the
// browser as it is (Debian's Chromium, Firefox ESR, WebKitGTK: no built-in model) is 'unavailable'
// and a send fails saying so (a book question is answered with quotes from the book instead).
// The Node tests of the adapter: prompt-api-adapter.test.mjs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStatic } from '../../scripts/static.mjs';
import { ENGINE, launchChromium } from './browser.mjs';

const built = existsSync(new URL('../../pkg/lectern_prompt_api.js', import.meta.url));
const skip = built ? false : 'SKIPPED: no pkg/ (bash scripts/build.sh)';
const running = { site: null, browser: null };

before(async () => {
  if (skip) return;
  // The repository root (resolve drops the trailing slash serveFile's check would trip on).
  running.site = await startStatic(resolve(fileURLToPath(new URL('../..', import.meta.url))));
  running.browser = await launchChromium();
});
after(async () => {
  await running.browser?.close();
  await running.site?.close();
});

/** The test page in a context of its own: `standIn` (the stand-in's options, or none), `query` more of the URL. */
async function openPage({ standIn, query = '' } = {}) {
  const page = await running.browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  const given = standIn ? `?stand-in=${encodeURIComponent(JSON.stringify(standIn))}` : '?';
  await page.goto(`${running.site.url}tests/js/prompt-api/page.html${given}${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  return { page, problems };
}

/** In the page: Lectern with the provider, and `window.ask(question, options)` answering `{ text, deltas }` or `{ error }`. */
const openLectern = (page, options = {}) =>
  page.evaluate(async (options) => {
    window.deltas = [];
    window.lectern = await window.Lectern.open({
      dbName: `prompt-api-${Math.random()}`,
      provider: window.promptApiProvider(options),
      approvals: { default: 'auto' },
      onEvent: (ev) => ev.type === 'textDelta' && window.deltas.push(ev.text),
    });
    window.conversation = (await window.lectern.createConversation({ title: 'Prompt API' })).id;
    window.ask = async (question, sendOptions) => {
      window.deltas = [];
      try {
        const reply = await window.lectern.send(window.conversation, question, sendOptions);
        return { text: reply.text, deltas: window.deltas, usage: reply.usage };
      } catch (e) {
        return { error: `${e.name}: ${e.message}`, deltas: window.deltas };
      }
    };
  }, options);

/** The stand-in's sessions as plain data. */
const sessions = (page) =>
  page.evaluate(() =>
    window.standIn.sessions.map((s) => ({
      id: s.id,
      parent: s.parent,
      destroyed: s.destroyed,
      initialPrompts: s.initialPrompts,
      prompts: s.prompts.map((p) => ({ input: p.input, streaming: p.streaming, outcome: p.outcome })),
    })),
  );

test("a message's answer streams from a clone of the conversation's session, repeated pieces kept", { skip }, async () => {
  const { page, problems } = await openPage({ standIn: { stepMs: 10 } });
  await openLectern(page);
  await page.evaluate(() => window.standIn.script(['Syme ', 'is ', 'a ', 'po', 'et', 'et', 'et', '.']));
  const first = await page.evaluate(() => window.ask('Who is Syme?'));
  assert.equal(first.error, undefined);
  assert.equal(first.text, 'Syme is a poetetet.', 'each piece is new text, the repeated ones kept');
  assert.deepEqual(first.deltas, ['Syme ', 'is ', 'a ', 'po', 'et', 'et', 'et', '.'], 'one textDelta event per piece');
  assert.equal(first.usage.outputTokens, Math.ceil(first.text.length / 4));
  assert.ok(first.usage.inputTokens > 3, 'the session counted the system message and the question');

  await page.evaluate(() => window.standIn.script('A poet too.'));
  const second = await page.evaluate(() => window.ask('And Gregory?'));
  assert.equal(second.text, 'A poet too.');
  const [base, clone, nextBase, nextClone] = await sessions(page);
  assert.equal(base.initialPrompts[0].role, 'system', "Lectern's system message starts the session");
  assert.deepEqual(base.prompts, [], 'a base session is never prompted');
  assert.deepEqual([clone.parent, clone.destroyed, clone.prompts], [base.id, true, [{ input: 'Who is Syme?', streaming: true, outcome: 'answered' }]]);
  assert.deepEqual(nextBase.initialPrompts.slice(-2), [
    { role: 'user', content: 'Who is Syme?' },
    { role: 'assistant', content: 'Syme is a poetetet.' },
  ]);
  assert.deepEqual([nextClone.parent, nextClone.destroyed, nextClone.prompts[0].input], [nextBase.id, true, 'And Gregory?']);
  assert.deepEqual(problems, []);
  await page.close();
});

test("Stop's abort reaches the browser's model: the prompt stops", { skip }, async () => {
  const { page, problems } = await openPage({ standIn: { stepMs: 40 } });
  await openLectern(page);
  const outcome = await page.evaluate(async () => {
    window.standIn.script(Array.from({ length: 100 }, (_, i) => `word${i} `));
    const controller = new AbortController();
    const asked = window.ask('Tell me a long story', { signal: controller.signal });
    while (window.deltas.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    return asked;
  });
  assert.match(outcome.error, /^AbortError/);
  const [, clone] = await sessions(page);
  assert.equal(clone.prompts[0].outcome, 'aborted');
  assert.equal(clone.destroyed, true);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the download is refused without a user gesture, and a click starts it with its progress', { skip }, async () => {
  const { page, problems } = await openPage({ standIn: { availability: 'downloadable', stepMs: 20 }, query: '&download-at-load' });
  await page.waitForFunction(() => window.downloads[0]?.outcome !== 'running');
  const refused = await page.evaluate(() => ({ download: window.downloads[0], state: window.standIn.availability }));
  assert.equal(refused.download.outcome, 'PromptApiError: needs-user-activation');
  assert.notEqual(refused.download.activation, true, 'the page had no user activation');
  assert.deepEqual(refused.download.progress, []);
  assert.equal(refused.state, 'downloadable');
  await openLectern(page);
  const early = await page.evaluate(() => window.ask('Who is Syme?'));
  assert.match(early.error, /not downloaded yet.*downloadPromptApiModel/, 'a send never starts the download');

  await page.click('#download');
  await page.waitForFunction(() => window.downloads[1]?.outcome === 'done', null, { timeout: 15000 });
  const done = await page.evaluate(() => ({
    download: window.downloads[1],
    bar: document.querySelector('#bar').value,
    state: window.standIn.availability,
    create: window.standIn.calls.filter((c) => c.method === 'create').map((c) => [c.activation, c.outcome]),
  }));
  assert.deepEqual(done.download.progress, [0, 0.25, 0.5, 0.75, 1]);
  assert.equal(done.bar, 1);
  assert.equal(done.state, 'available');
  assert.deepEqual(done.create, [[false, 'NotAllowedError'], [true, 'created']]);
  await page.evaluate(() => window.standIn.script('Syme is a poet.'));
  const answered = await page.evaluate(() => window.ask('Who is Syme?'));
  const seenBy = async () => JSON.stringify({ calls: await page.evaluate(() => window.standIn.calls.map((c) => [c.method, c.outcome])), sessions: await sessions(page) });
  assert.equal(answered.error, undefined, answered.error && `the stand-in saw: ${await seenBy()}`);
  assert.equal(answered.text, 'Syme is a poet.');
  assert.deepEqual(problems, []);
  await page.close();
});

test(`${ENGINE} as it is (no stand-in): the browser's model is unavailable, a send says so, a book question is quoted`, { skip }, async (t) => {
  const { page, problems } = await openPage();
  const seen = await page.evaluate(async () => ({
    exposed: 'LanguageModel' in globalThis,
    availability: await window.promptApiAvailability(),
  }));
  t.diagnostic(`${ENGINE}: globalThis.LanguageModel ${seen.exposed ? 'is exposed' : 'is missing'}; availability '${seen.availability}'`);
  assert.equal(seen.availability, 'unavailable');
  await openLectern(page);
  const asked = await page.evaluate(() => window.ask('Who is Syme?'));
  assert.match(asked.error, /The browser's model is unavailable/);
  assert.deepEqual(asked.deltas, []);
  // A book question is answered with quotes from the book instead, the model's failure kept with it.
  const quoted = await page.evaluate(async () => {
    const text = Array.from({ length: 20 }, (_, i) => `Gabriel Syme is a poet and a detective. He met Gregory in garden ${i}.`).join(' ');
    const book = await window.lectern.addBook({ title: 'Thursday', text });
    const { id } = await window.lectern.createConversation({ bookId: book.id });
    const reply = await window.lectern.send(id, 'Who is Gabriel Syme?');
    return { text: reply.text, quoted: reply.quoted };
  });
  assert.equal(quoted.quoted.reason, 'fallback');
  assert.match(quoted.quoted.error, /PromptApiError: The browser's model is unavailable/);
  assert.match(quoted.text, /“Gabriel Syme is a poet and a detective\.”/);
  assert.deepEqual(problems, []);
  await page.close();
});
