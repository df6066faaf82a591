// `embedder: { kind: 'minilm' }` in headless Chromium against the built
// package: the model's files fetched once with `loading` progress and kept in
// the Cache API, computed in Lectern's worker (books and queries alike), read
// from the cache with the network to them cut in the next session, the same
// results without a worker, and a model URL that fails stores nothing.
// Needs the all-MiniLM-L6-v2 files (scripts/fetch-minilm.sh → LECTERN_MINILM_DIR).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINE, demoAndChromium } from './browser.mjs';

const dir = process.env.LECTERN_MINILM_DIR;
const skip = dir && existsSync(join(dir, 'model.safetensors')) ? false : 'SKIPPED: no MiniLM files (LECTERN_MINILM_DIR, scripts/fetch-minilm.sh)';
if (skip) console.log(skip);
const running = skip ? null : demoAndChromium({ chunkDelayMs: 0, minilm: dir });

const PAGES = [
  'The ship left the harbour at dawn, its sails full of wind.',
  'She baked bread every morning, kneading the dough by hand.',
  'The detective examined the footprints beneath the broken window.',
  'Snow covered the mountain village all winter long.',
];
const QUESTIONS = [
  ['Who was looking for clues about the burglary?', 3],
  ['Sailing out to sea early in the day', 1],
  ['A cold place high in the hills', 4],
];

/**
 * A page of the demo's origin (in `context`) with Lectern imported and
 * `window.run(options)`: opens Lectern with MiniLM and `options`, adds the
 * four pages, asks the questions (and the first within page 2), closes;
 * resolves with the book, the progress seen, the answers' pages and the
 * worker messages — or `{ error }`.
 */
async function minilmPage(context) {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${running.demo.url}blank`);
  await page.evaluate(async ({ baseUrl, pages, questions }) => {
    const messages = [];
    const Native = window.Worker;
    window.Worker = class extends Native {
      constructor(url, options) {
        super(url, options);
        this.addEventListener('message', (e) => messages.push(e.data.type));
      }
    };
    const { default: init, Lectern } = await import('/pkg/lectern.js');
    await init();
    /** The book once its vectors are in, or the `ingestFailed` event that says why they are not. */
    const vectors = async (lectern, id, events) => {
      for (let i = 0; i < 1200; i += 1) {
        const failed = events.find((e) => e.type === 'ingestFailed' && e.bookId === id);
        if (failed) return { failed };
        const book = (await lectern.books()).find((b) => b.id === id);
        if (book.dimensions > 0) return { book };
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('no vectors in 60 s');
    };
    window.run = async (options) => {
      const progress = [];
      const events = [];
      try {
        const lectern = await Lectern.open({
          provider: { kind: 'openai', baseUrl, model: 'mock', apiKey: 'k' },
          embedder: { kind: 'minilm', modelUrl: '/models/model.safetensors', vocabUrl: '/models/vocab.txt' },
          retrieval: { chunkChars: 100, overlapChars: 0 },
          onEvent: (e) => events.push(e),
          ...options,
        });
        try {
          const added = await lectern.addBook({ title: 'Four pages', pages }, { onProgress: (p) => progress.push(p) });
          const { book, failed } = await vectors(lectern, added.id, events);
          if (failed) return { added, failed, books: (await lectern.books()).length, progress };
          const answers = [];
          for (const [question] of questions) {
            answers.push((await lectern.search(question, { k: 1 }))[0].startPage);
          }
          const bounded = (await lectern.search(questions[0][0], { k: 1, maxPage: 2 }))[0].startPage;
          return { book, progress, answers, bounded, books: (await lectern.books()).length, messages };
        } catch (e) {
          return { error: { name: e.name, message: e.message, status: e.status }, books: (await lectern.books()).length, progress };
        } finally {
          await lectern.close();
        }
      } catch (e) {
        return { error: { name: e.name, message: e.message } };
      }
    };
  }, { baseUrl: `${running.demo.mockUrl}/v1`, pages: PAGES, questions: QUESTIONS });
  return { page, problems };
}

/** The requests for the model files the demo server gets from now on (the worker's included), as `count()`. */
function countModelRequests() {
  const at = (file) => running.demo.requestsFor(`/models/${file}`);
  const start = { model: at('model.safetensors'), vocab: at('vocab.txt') };
  return () => ({ model: at('model.safetensors') - start.model, vocab: at('vocab.txt') - start.vocab });
}

test('MiniLM runs in the worker: the files load once with progress, paraphrases find their page, queries are embedded there', { skip }, async () => {
  const context = await running.browser.newContext();
  const requests = countModelRequests();
  const { page, problems } = await minilmPage(context);
  const out = await page.evaluate(() => window.run({}));
  assert.equal(out.error, undefined, JSON.stringify(out.error));
  assert.equal(out.book.embedder, 'sentence-transformers/all-MiniLM-L6-v2');
  assert.equal(out.book.dimensions, 384);
  assert.deepEqual(out.answers, QUESTIONS.map(([, page]) => page), 'each paraphrase finds its page');
  assert.ok(out.bounded <= 2, 'the page bound holds');
  const loading = out.progress.filter((p) => p.phase === 'loading');
  assert.ok(loading.length >= 2, `loading progress was reported: ${JSON.stringify(loading.slice(0, 3))}`);
  const last = loading.at(-1);
  assert.ok(last.total > 80e6 && last.done === last.total, `the model's bytes, all of them: ${JSON.stringify(last)}`);
  assert.deepEqual([...new Set(out.progress.map((p) => p.phase))], ['chunking', 'loading', 'embedding'], 'the model loads once the book is stored');
  const vectorMessages = out.messages.filter((m) => m === 'vectors').length;
  assert.ok(vectorMessages >= QUESTIONS.length + 3, `the chunks and every query were embedded in the worker: ${vectorMessages}`);
  assert.deepEqual(requests(), { model: 1, vocab: 1 }, 'each file fetched once, by the worker');
  assert.deepEqual(problems, []);
  await context.close();
});

// WebKitGTK 2.50 under WebDriver (an automation session): the files the first page's worker put in
// the Cache API are gone for the next page (its worker fetches them again), though the same puts
// made from a page's own script persist. Not understood yet; nothing is lost (the model is
// fetched again), but reading it offline is unverified in WebKit.
const cacheSkip = skip || (ENGINE === 'webkit' && 'SKIPPED in webkit: the Cache API entries a worker wrote are not seen by the next page under WebKitWebDriver (docs/testing.md, "Browsers")');

test('the next session reads the model from the Cache API with the network to it cut; without a worker the results are the same', { skip: cacheSkip }, async () => {
  const context = await running.browser.newContext();
  const first = await minilmPage(context);
  const fetched = await first.page.evaluate(() => window.run({}));
  assert.equal(fetched.error, undefined, JSON.stringify(fetched.error));
  await first.page.close();
  // Offline for the model files from now on: only the cache can serve them.
  const requests = countModelRequests();
  running.demo.refuse('/models/');
  let second;
  try {
    second = await minilmPage(context);
    const cached = await second.page.evaluate(() => window.run({}));
    assert.equal(cached.error, undefined, JSON.stringify(cached.error));
    assert.deepEqual(cached.answers, fetched.answers, JSON.stringify(cached.failed));
    const inPage = await second.page.evaluate(() => window.run({ worker: false }));
    assert.equal(inPage.error, undefined, JSON.stringify(inPage.error));
    assert.deepEqual(inPage.answers, fetched.answers, 'the page computes what the worker computes');
    assert.deepEqual(requests(), { model: 0, vocab: 0 }, 'no request for the model files reached the network');
  } finally {
    running.demo.refuse(null);
  }
  const keys = await second.page.evaluate(async () => (await (await caches.open('lectern-models-v1')).keys()).map((r) => new URL(r.url).pathname));
  assert.deepEqual(keys.sort(), ['/models/model.safetensors', '/models/vocab.txt']);
  await context.close();
});

test('a model URL that fails leaves the book searched lexically, with a typed ingestFailed event; the next good URL works', { skip }, async () => {
  const context = await running.browser.newContext();
  const { page } = await minilmPage(context);
  const missing = await page.evaluate(() =>
    window.run({ dbName: 'minilm-missing', embedder: { kind: 'minilm', modelUrl: '/models/nothing.safetensors', vocabUrl: '/models/vocab.txt' } }),
  );
  assert.equal(missing.error, undefined, JSON.stringify(missing.error));
  assert.equal(missing.failed?.name, 'ApiError', JSON.stringify(missing.failed));
  assert.match(missing.failed.message, /404/);
  assert.equal(missing.books, 1, 'the book is kept, searched lexically');
  const notAModel = await page.evaluate(() =>
    window.run({ dbName: 'minilm-vocab', embedder: { kind: 'minilm', modelUrl: '/models/vocab.txt', vocabUrl: '/models/vocab.txt' } }),
  );
  assert.equal(notAModel.failed?.name, 'ConfigError', JSON.stringify(notAModel));
  assert.match(notAModel.failed.message, /safetensors/);
  const good = await page.evaluate(() => window.run({ dbName: 'minilm-missing' }));
  assert.equal(good.error, undefined, JSON.stringify(good.error));
  const unknown = await page.evaluate(() => window.run({ embedder: { kind: 'minilm', modelUrl: 'x' } }));
  assert.equal(unknown.error?.name, 'ConfigError', 'vocabUrl is required');
  await context.close();
});

test('addBook resolves before the worker embeds the book, and a search is answered while it does', { skip }, async () => {
  const context = await running.browser.newContext();
  const { page } = await minilmPage(context);
  const order = await page.evaluate(async (pages) => {
    const { Lectern } = await import('/pkg/lectern.js');
    const lectern = await Lectern.open({
      provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'mock', apiKey: 'k' },
      embedder: { kind: 'minilm', modelUrl: '/models/model.safetensors', vocabUrl: '/models/vocab.txt' },
      retrieval: { chunkChars: 400, overlapChars: 0 },
    });
    const small = await lectern.addBook({ title: 'Four pages', pages });
    const long = Array.from({ length: 48 }, (_, i) =>
      `Chapter ${i}. ` + 'The anarchists met at dawn in the square and argued about the council, the poet and the policeman. '.repeat(4),
    );
    const events = [];
    let embedding = 0;
    let total = 1;
    const onProgress = (p) => {
      if (p.phase !== 'embedding') return;
      ({ done: embedding, total } = p);
      if (p.done === p.total) events.push('embedded');
    };
    await lectern.addBook({ title: 'Long', pages: long }, { onProgress });
    events.push('added');
    while (embedding < 8) await new Promise((r) => setTimeout(r, 20));
    await lectern.search('Who was looking for clues about the burglary?', { bookIds: [small.id], k: 1 });
    events.push('searched');
    while (embedding < total) await new Promise((r) => setTimeout(r, 20));
    await lectern.close();
    return events;
  }, PAGES);
  assert.deepEqual(order, ['added', 'searched', 'embedded']);
  await context.close();
});
