// Ingestion in Lectern's Web Worker, in headless Chromium on a plain page that
// imports the built package: addBook runs in the worker (its messages are
// seen, the page keeps ticking) and resolves with a book searched lexically at
// once; its vectors come after (the same as the in-page path's), from the
// page's embedder (a custom or OpenAI-compatible one) or the worker's
// (MiniLM, tests/js/minilm.test.mjs); aborting stores nothing, or later stops
// only the vectors; paced in-page work with `worker: false`, without Worker,
// or when the worker cannot start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINE, demoAndChromium } from './browser.mjs';

const running = demoAndChromium({ chunkDelayMs: 0 });

/**
 * A page of the demo's origin with Lectern imported and helpers on `window`:
 * `open(options)`, `attempt(work)`, `book(paragraphs)` (deterministic text),
 * `ticks()` (counts `setTimeout(0)` turns until stopped), and a `Worker`
 * that records every worker started, its messages' types and terminations.
 */
async function lecternPage({ withoutWorker = false, background = false } = {}) {
  const page = await (background ? running.browser.newBackgroundPage() : running.browser.newPage());
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${running.demo.url}blank`);
  await page.evaluate(
    async ({ baseUrl, withoutWorker }) => {
      window.workers = [];
      if (withoutWorker) {
        delete window.Worker;
      } else {
        const Native = window.Worker;
        window.Worker = class extends Native {
          constructor(url, options) {
            super(url, options);
            const record = { url: String(url), messages: [], terminated: false };
            window.workers.push(record);
            this.addEventListener('message', (e) => record.messages.push(e.data.type));
            this.addEventListener('error', () => record.messages.push('error-event'));
            const terminate = this.terminate.bind(this);
            this.terminate = () => {
              record.terminated = true;
              terminate();
            };
          }
        };
      }
      const { default: init, Lectern } = await import('/pkg/lectern.js');
      await init();
      window.Lectern = Lectern;
      window.baseUrl = baseUrl;
      window.open = (options) =>
        Lectern.open({ provider: { kind: 'openai', baseUrl, model: 'mock', apiKey: 'k' }, ...options });
      window.attempt = async (work) => {
        try {
          return { ok: await work() };
        } catch (e) {
          return { error: { name: e.name, message: e.message } };
        }
      };
      const words = 'lantern harbour anarchist poet sunday council garden balloon duel marquis'.split(' ');
      window.book = (paragraphs) =>
        Array.from({ length: paragraphs }, (_, p) =>
          Array.from({ length: 6 }, (_, s) =>
            `The ${words[(p + s) % 10]} met the ${words[(p * 7 + s * 3) % 10]} near paragraph ${p} sentence ${s}.`,
          ).join(' '),
        ).join('\n\n');
      /** The stored book once its vectors are in. */
      window.embedded = async (lectern, id) => {
        let book;
        await window.until(async () => {
          book = (await lectern.books()).find((b) => b.id === id);
          return book.dimensions > 0;
        }, `the vectors of ${id}`);
        return book;
      };
      window.until = async (check, what) => {
        for (let i = 0; i < 600; i += 1) {
          if (await check()) return;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error(`timed out waiting for ${what}`);
      };
      // A timer turning as often as the page lets it: how many times it
      // turned, and the longest wait between two turns (the longest task).
      window.ticks = () => {
        let count = 0;
        let running = true;
        let last = performance.now();
        let longest = 0;
        const tick = () => {
          const now = performance.now();
          longest = Math.max(longest, now - last);
          last = now;
          count += 1;
          if (running) setTimeout(tick, 0);
        };
        setTimeout(tick, 0);
        return () => {
          running = false;
          return { count, longest };
        };
      };
    },
    { baseUrl: `${running.demo.mockUrl}/v1`, withoutWorker },
  );
  return { page, problems };
}

/** Adds the same text with and without the worker; returns both books, searches and the worker records. */
async function addBothWays(page, extra) {
  return page.evaluate(async (extra) => {
    const text = window.book(400);
    const results = {};
    for (const worker of [true, false]) {
      const lectern = await window.open({ dbName: `same-${worker}-${Math.random()}`, worker, ...extra });
      const phases = new Set();
      const onProgress = (p) => phases.add(p.phase);
      const added = await lectern.addBook({ title: 'Same', text }, { onProgress });
      const lexical = await lectern.search('anarchist harbour sunday', { k: 8 });
      // With an embedder, the vectors come after addBook resolved.
      const book = extra.embedder ? await window.embedded(lectern, added.id) : added;
      const hits = await lectern.search('anarchist harbour sunday', { k: 8 });
      results[worker] = {
        added: { ...added, id: undefined, createdAt: undefined },
        book: { ...book, id: undefined, createdAt: undefined },
        lexical: lexical.length,
        hits: hits.map(({ bookId, ...rest }) => rest),
        phases: [...phases],
      };
      await lectern.close();
    }
    return { ...results, workers: window.workers };
  }, extra ?? {});
}

test('addBook runs in the worker and gives what the in-page path gives', async () => {
  const { page, problems } = await lecternPage();
  const both = await addBothWays(page, { embedder: { kind: 'hashed' } });
  assert.equal(both.workers.length, 1, 'one worker was started (for the worker: true instance only)');
  const messages = both.workers[0].messages;
  assert.equal(messages[0], 'ready');
  assert.ok(messages.filter((m) => m === 'progress').length >= 3, `progress came from the worker: ${messages}`);
  assert.ok(messages.includes('prepared'), 'the worker sent the book');
  assert.ok(both.workers[0].terminated, 'close() stopped the worker');
  assert.deepEqual(both.true.book, both.false.book);
  assert.ok(both.true.book.chunkCount > 50);
  assert.equal(both.true.added.dimensions, 0, 'stored before its vectors');
  assert.equal(both.true.book.dimensions, 1024);
  assert.equal(both.true.lexical, 8, 'searched lexically at once');
  assert.deepEqual(both.true.hits, both.false.hits, 'same chunks and vectors: the same results and scores');
  assert.deepEqual(both.true.phases, ['chunking', 'embedding']);
  assert.deepEqual(both.false.phases, ['chunking', 'embedding']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('without an embedder, the worker and the page build the same lexical index', async () => {
  const { page, problems } = await lecternPage();
  const both = await addBothWays(page);
  assert.equal(both.workers.length, 1);
  assert.ok(both.workers[0].messages.includes('prepared'), 'the worker sent the book');
  assert.deepEqual(both.true.book, both.false.book);
  assert.equal(both.true.book.embedder, 'none');
  assert.equal(both.true.book.dimensions, 0);
  assert.ok(both.true.hits.length > 0);
  assert.deepEqual(both.true.hits, both.false.hits, 'the same BM25 results and scores');
  assert.deepEqual(both.true.phases, ['chunking'], 'nothing to embed');
  assert.deepEqual(both.false.phases, ['chunking']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the page keeps running while the worker ingests, and in-page ingestion yields', async () => {
  const { page } = await lecternPage();
  const ticks = await page.evaluate(async () => {
    const text = window.book(6000);
    const out = {};
    for (const worker of [true, false]) {
      // The hashed embedder: the longest ingestion (without an embedder there is no embedding step).
      const lectern = await window.open({ worker, embedder: { kind: 'hashed' } });
      await lectern.addBook({ title: 'warm-up', text: 'A short book. It has two sentences.' });
      const stop = window.ticks();
      await lectern.addBook({ title: 'Long', text });
      out[worker] = stop();
      await lectern.close();
    }
    return out;
  });
  // Without yielding, ingestion is one long task: the timer waits for all of it.
  // The test's own work (addBook's call, the events) may hold it a little.
  for (const [where, { count, longest }] of [['while the worker ingested', ticks.true], ['during paced in-page ingestion', ticks.false]]) {
    assert.ok(count >= 10, `the page's timer turned ${count} times ${where}`);
    assert.ok(longest <= 100, `the page's timer waited ${Math.round(longest)} ms at most ${where}`);
  }
  await page.close();
});

test('a big book is searched exactly while the worker indexes it, then with its index, read back after a reopen', async () => {
  const { page } = await lecternPage();
  const out = await page.evaluate(async () => {
    const options = { dbName: 'big', embedder: { kind: 'hashed', dimensions: 64 }, retrieval: { chunkChars: 100, overlapChars: 0, indexMinChunks: 1024 } };
    let lectern = await window.open(options);
    const book = await lectern.addBook({ title: 'Big', text: window.book(1200) });
    const early = await lectern.search('marquis balloon', { k: 3 });
    await window.embedded(lectern, book.id);
    const first = await lectern.indexSource(book.id);
    await window.until(async () => (await lectern.indexSource(book.id)) === 'built', 'the index');
    const built = await lectern.indexSource(book.id);
    const late = await lectern.search('marquis balloon', { k: 3 });
    await lectern.close();
    lectern = await window.open(options);
    const reopened = await lectern.indexSource(book.id);
    const hits = await lectern.search('marquis balloon', { k: 3 });
    await lectern.close();
    return {
      chunks: book.chunkCount,
      first,
      built,
      reopened,
      early: early.map((h) => h.ordinal),
      late: late.map((h) => h.ordinal),
      hits: hits.length,
      messages: window.workers[0].messages,
    };
  });
  assert.ok(out.chunks >= 1024, `${out.chunks} chunks`);
  assert.ok(['building', 'built'].includes(out.first), out.first);
  assert.equal(out.early.length, 3, 'searchable (lexically) as soon as addBook resolved');
  assert.equal(out.late.length, 3);
  assert.equal(out.built, 'built');
  assert.ok(out.messages.indexOf('prepared') < out.messages.indexOf('done'), `${out.messages}`);
  assert.equal(out.reopened, 'snapshot');
  assert.equal(out.hits, 3);
  assert.ok(out.messages.includes('done'));
  await page.close();
});

test('an index never finished is built in the worker at the next open, not in the page', async () => {
  const { page } = await lecternPage();
  const out = await page.evaluate(async () => {
    const dbName = 'unfinished';
    const options = { dbName, embedder: { kind: 'hashed', dimensions: 64 }, retrieval: { chunkChars: 100, overlapChars: 0, indexMinChunks: 1024 } };
    let lectern = await window.open(options);
    const book = await lectern.addBook({ title: 'Big', text: window.book(1200) });
    await window.embedded(lectern, book.id);
    await window.until(async () => (await lectern.indexSource(book.id)) === 'built', 'the index');
    await lectern.close();
    // As if the page had closed before the worker finished: the book is stored, its snapshot is not.
    await new Promise((resolve, reject) => {
      const request = indexedDB.open(dbName);
      request.onerror = () => reject(request.error);
      request.onsuccess = () => {
        const db = request.result;
        const tx = db.transaction('indexSnapshots', 'readwrite');
        tx.objectStore('indexSnapshots').delete(book.id);
        tx.oncomplete = () => (db.close(), resolve());
        tx.onerror = () => reject(tx.error);
      };
    });
    lectern = await window.open(options);
    const first = await lectern.indexSource(book.id);
    const early = await lectern.search('marquis balloon', { k: 3 });
    await window.until(async () => (await lectern.indexSource(book.id)) === 'built', 'the rebuilt index');
    const late = await lectern.search('marquis balloon', { k: 3 });
    await lectern.close();
    lectern = await window.open(options);
    const reopened = await lectern.indexSource(book.id);
    await lectern.close();
    return { first, early: early.length, late: late.length, reopened, messages: window.workers.map((w) => w.messages) };
  });
  assert.equal(out.first, 'building', 'searched exactly while the worker builds it (the page built it before)');
  assert.equal(out.early, 3);
  assert.equal(out.late, 3);
  assert.equal(out.reopened, 'snapshot', 'the rebuilt index was saved');
  assert.equal(out.messages.length, 2, `one worker to add, one to rebuild: ${JSON.stringify(out.messages)}`);
  assert.deepEqual(out.messages[1], ['ready', 'done'], 'the second worker only built the index');
  await page.close();
});

test('without a worker, a big book gets no index (exact search) rather than a page-freezing build', async () => {
  const { page } = await lecternPage({ withoutWorker: true });
  const out = await page.evaluate(async () => {
    const options = { dbName: 'no-worker', embedder: { kind: 'hashed', dimensions: 64 }, retrieval: { chunkChars: 100, overlapChars: 0, indexMinChunks: 1024 } };
    const phases = [];
    let lectern = await window.open(options);
    const book = await lectern.addBook({ title: 'Big', text: window.book(1200) }, { onProgress: (p) => phases.push(p.phase) });
    await window.embedded(lectern, book.id);
    const source = await lectern.indexSource(book.id);
    const hits = await lectern.search('marquis balloon', { k: 3, maxPage: 2 });
    await lectern.close();
    lectern = await window.open(options);
    const reopened = await lectern.indexSource(book.id);
    const again = await lectern.search('marquis balloon', { k: 3, maxPage: 2 });
    await lectern.close();
    const tooSmall = await window.attempt(() => window.open({ retrieval: { indexMinChunks: 10 } }));
    return { chunks: book.chunkCount, source, reopened, hits, again, phases: [...new Set(phases)], tooSmall };
  });
  assert.equal(out.tooSmall.error?.name, 'ConfigError');
  assert.match(out.tooSmall.error.message, /indexMinChunks must be at least 256/);
  assert.ok(out.chunks >= 1024, `${out.chunks} chunks`);
  assert.equal(out.source, 'none', 'no HNSW build on the page (it was built there before)');
  assert.deepEqual(out.phases, ['chunking', 'embedding'], 'no indexing phase: no index in a page');
  assert.equal(out.reopened, 'none');
  assert.equal(out.hits.length, 3);
  assert.ok(out.hits.every((h) => h.endPage <= 2));
  assert.deepEqual(out.again, out.hits);
  await page.close();
});

test('a custom embedder is called by the page after the book is stored; its failure is an ingestFailed event', async () => {
  const { page } = await lecternPage();
  const result = await page.evaluate(async () => {
    window.embedCalls = 0;
    const embed = async (texts) => {
      window.embedCalls += 1;
      return texts.map((t) => {
        const v = new Float32Array(16);
        for (const w of t.toLowerCase().split(/\W+/)) v[(w.length * 7 + w.charCodeAt(0)) % 16] += 1;
        return v;
      });
    };
    const events = [];
    const failing = await window.open({
      embedder: { kind: 'custom', model: 'page', embed: async () => { throw new Error('no model here'); } },
      onEvent: (e) => events.push(e),
    });
    const kept = await failing.addBook({ title: 'F', text: window.book(5) });
    await window.until(() => events.some((e) => e.type === 'ingestFailed'), 'the ingestFailed event');
    const failed = events.find((e) => e.type === 'ingestFailed');
    const stillFound = (await failing.search('poet garden', { k: 2 })).length;
    const stillWaiting = (await failing.books())[0].dimensions;
    await failing.close();
    const text = window.book(200);
    const hits = {};
    for (const worker of [true, false]) {
      const lectern = await window.open({ worker, embedder: { kind: 'custom', model: 'page', embed, batchSize: 16 } });
      const book = await lectern.addBook({ title: 'C', text });
      await window.embedded(lectern, book.id);
      hits[worker] = (await lectern.search('poet garden', { k: 5 })).map(({ bookId, ...r }) => r);
      await lectern.close();
    }
    return { kept: kept.title, failed, stillFound, stillWaiting, calls: window.embedCalls, hits };
  });
  assert.equal(result.kept, 'F', 'addBook resolved: the book is stored before its vectors');
  assert.equal(result.failed.name, 'ToolError');
  assert.match(result.failed.message, /no model here/);
  assert.equal(result.stillFound, 2, 'the book is still searched, lexically');
  assert.equal(result.stillWaiting, 0, 'and still waits for its vectors (the next open tries again)');
  assert.ok(result.calls > 2, `embed was called ${result.calls} times`);
  assert.deepEqual(result.hits.true, result.hits.false);
  await page.close();
});

test('an OpenAI-compatible embedder is fetched after the book is stored', async () => {
  const { page } = await lecternPage();
  const out = await page.evaluate(async () => {
    const lectern = await window.open({ embedder: { kind: 'openai', baseUrl: window.baseUrl, model: 'mock-embed', apiKey: 'k', batchSize: 32 } });
    const added = await lectern.addBook({ title: 'O', text: window.book(100) });
    const book = await window.embedded(lectern, added.id);
    const hits = await lectern.search('lantern duel', { k: 2 });
    await lectern.close();
    return { added, book, hits: hits.length, messages: window.workers[0].messages };
  });
  assert.equal(out.added.embedder, 'mock-embed');
  assert.equal(out.added.dimensions, 0);
  assert.equal(out.book.dimensions, 64);
  assert.ok(out.messages.includes('prepared'));
  assert.equal(out.hits, 2);
  await page.close();
});

test('aborting stores nothing and stops the worker; the next book starts a new one', async () => {
  const { page } = await lecternPage();
  const out = await page.evaluate(async () => {
    const lectern = await window.open({ dbName: 'abort', embedder: { kind: 'hashed' } });
    const controller = new AbortController();
    const failed = await window.attempt(() =>
      lectern.addBook(
        { title: 'Aborted', text: window.book(3000) },
        { signal: controller.signal, onProgress: (p) => p.phase === 'chunking' && p.done > 0 && controller.abort() },
      ),
    );
    const afterAbort = await lectern.books();
    const terminated = window.workers[0].terminated;
    const added = await lectern.addBook({ title: 'Next', text: window.book(10) });
    const titles = (await lectern.books()).map((b) => b.title);
    await lectern.close();
    return { failed, afterAbort, terminated, titles, workers: window.workers.length, added: added.title };
  });
  assert.equal(out.failed.error.name, 'AbortError');
  assert.deepEqual(out.afterAbort, []);
  assert.equal(out.terminated, true);
  assert.deepEqual(out.titles, ['Next']);
  assert.equal(out.workers, 2);
  await page.close();
});

test('worker: false, no Worker, and a worker that cannot start all ingest in the page', async () => {
  const { page, problems } = await lecternPage();
  const out = await page.evaluate(async () => {
    const chunkCounts = [];
    const off = await window.open({ worker: false });
    chunkCounts.push((await off.addBook({ title: 'Off', text: window.book(50) })).chunkCount);
    await off.close();
    const startedWhenOff = window.workers.length;
    const missing = await window.open({ workerUrl: '/no-such-worker.js' });
    chunkCounts.push((await missing.addBook({ title: 'Missing', text: window.book(50) })).chunkCount);
    chunkCounts.push((await missing.addBook({ title: 'Again', text: window.book(50) })).chunkCount);
    await missing.close();
    const fetched = performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname);
    return { chunkCounts, startedWhenOff, workers: window.workers, fetched };
  });
  assert.equal(out.startedWhenOff, 0, 'worker: false starts no worker');
  assert.ok(out.fetched.includes('/pkg/lectern_books_bg.wasm'), 'the page loaded the books module');
  assert.equal(out.fetched.filter((p) => p === '/pkg/lectern_books_bg.wasm').length, 1, 'once');
  assert.equal(out.workers.length, 1, 'the missing worker was tried once, not for every book');
  assert.ok(out.workers[0].messages.includes('error-event'));
  assert.ok(out.chunkCounts.every((n) => n > 0 && n === out.chunkCounts[0]), `${out.chunkCounts}`);
  assert.deepEqual(problems, []);
  await page.close();

  const bare = await lecternPage({ withoutWorker: true });
  const title = await bare.page.evaluate(async () => {
    const lectern = await window.open({});
    const book = await lectern.addBook({ title: 'No Worker here', text: window.book(20) });
    await lectern.close();
    return book.title;
  });
  assert.equal(title, 'No Worker here');
  await bare.page.close();
});

test('in a hidden tab, in-page ingestion goes on at speed (its yields are not throttled timers)', {
  skip: ENGINE !== 'webkit' && `SKIPPED in ${ENGINE}: Playwright shows every page; only the WebKit driver (tests/js/webkit/) opens a hidden tab`,
}, async () => {
  // WebKit runs a hidden page's timers a few times a second: paced with setTimeout(0) alone, the
  // same book took 4× as long in a hidden tab (4.3 s against 1.1 s here).
  const embedIn = async ({ page }) =>
    page.evaluate(async () => {
      const lectern = await window.open({ dbName: `hidden-${Math.random()}`, worker: false, embedder: { kind: 'hashed' } });
      const started = performance.now();
      const added = await lectern.addBook({ title: 'Hidden', text: window.book(400) });
      const book = await window.embedded(lectern, added.id);
      const ms = performance.now() - started;
      await lectern.close();
      return { hidden: document.hidden, chunks: book.chunkCount, dimensions: book.dimensions, ms };
    });
  const shown = await lecternPage();
  const hidden = await lecternPage({ background: true });
  const inShown = await embedIn(shown);
  const inHidden = await embedIn(hidden);
  assert.deepEqual([inShown.hidden, inHidden.hidden], [false, true]);
  assert.ok(inHidden.dimensions > 0 && inHidden.chunks > 50, `the vectors arrived: ${JSON.stringify(inHidden)}`);
  assert.ok(inHidden.ms < 2.5 * inShown.ms + 300, `hidden ${Math.round(inHidden.ms)} ms against shown ${Math.round(inShown.ms)} ms`);
  assert.deepEqual([...shown.problems, ...hidden.problems], []);
  await shown.page.close();
  await hidden.page.close();
});

test('aborting after addBook resolved stops only the vectors; the next open computes them', async () => {
  const { page } = await lecternPage();
  const out = await page.evaluate(async () => {
    const options = { dbName: 'resume-vectors', embedder: { kind: 'hashed', dimensions: 64 } };
    let lectern = await window.open(options);
    const controller = new AbortController();
    let embedding = false;
    const onProgress = (p) => {
      if (p.phase === 'embedding' && p.done > 0) {
        embedding = true;
        controller.abort();
      }
    };
    const book = await lectern.addBook({ title: 'Cut short', text: window.book(3000) }, { signal: controller.signal, onProgress });
    await window.until(() => embedding, 'the embedding phase');
    await new Promise((r) => setTimeout(r, 300));
    const waiting = (await lectern.books())[0].dimensions;
    const lexical = (await lectern.search('marquis balloon', { k: 3 })).length;
    await lectern.close();
    const events = [];
    lectern = await window.open({ ...options, onEvent: (e) => events.push(e) });
    const done = await window.embedded(lectern, book.id);
    const semantic = (await lectern.search('marquis balloon', { k: 3 })).map((h) => h.score);
    await lectern.close();
    const phases = [...new Set(events.filter((e) => e.type === 'ingestProgress').map((e) => e.phase))];
    return { waiting, lexical, dimensions: done.dimensions, semantic, phases };
  });
  assert.equal(out.waiting, 0, 'the abort stopped the vectors, the book stayed');
  assert.equal(out.lexical, 3, 'searched lexically meanwhile');
  assert.equal(out.dimensions, 64, 'the next open computed them');
  assert.ok(out.semantic.every((s) => s <= 1), `cosine scores: ${out.semantic}`);
  assert.deepEqual(out.phases, ['embedding'], 'with progress events');
  await page.close();
});

test('a chat answers without the books module; the first book call loads it once, and a book conversation reads through it', async () => {
  const { page, problems } = await lecternPage();
  const out = await page.evaluate(async () => {
    const fetched = () =>
      performance
        .getEntriesByType('resource')
        .map((e) => new URL(e.name).pathname)
        .filter((p) => p.startsWith('/pkg/lectern_books'));
    const lectern = await window.open({ dbName: `lazy-books-${Math.random()}` });
    const chat = await lectern.createConversation({ title: 'chat' });
    const answer = await lectern.send(chat.id, 'hello');
    const afterChat = fetched();
    // Two calls at once: the books module still loads once.
    const [before, book] = await Promise.all([
      lectern.books(),
      lectern.addBook({ title: 'Lazy', text: window.book(30) }),
    ]);
    const reading = await lectern.createConversation({ title: 'reading', bookId: book.id });
    const read = await lectern.send(reading.id, 'Who met the poet near the harbour?');
    const results = await lectern.search('poet harbour', { bookIds: [book.id], k: 3 });
    const missing = await window.attempt(() => lectern.createConversation({ bookId: 'no-such-book' }));
    const badPage = await window.attempt(() => lectern.page(book.id, 0));
    await lectern.close();
    const closed = await window.attempt(() => lectern.books());
    return {
      answered: answer.success,
      afterChat,
      afterBooks: fetched(),
      before: before.length,
      sources: (read.sources ?? []).map((s) => s.bookId),
      results: results.length,
      missing: missing.error?.name,
      badPage: badPage.error?.name,
      closed: closed.error?.name,
    };
  });
  assert.equal(out.answered, true);
  assert.deepEqual(out.afterChat, [], 'a chat without books loads no books module');
  // The page fetches the module's wasm once; its JS shows twice, as the worker's script graph imports it too.
  assert.deepEqual(out.afterBooks.filter((p) => p.endsWith('.wasm')), ['/pkg/lectern_books_bg.wasm'], 'loaded once');
  assert.ok(out.afterBooks.includes('/pkg/lectern_books.js'));
  assert.ok(out.before === 0 || out.before === 1, `${out.before}`);
  assert.ok(out.sources.length > 0, 'the book conversation got passages from the books module');
  assert.equal(out.results, 3);
  assert.equal(out.missing, 'NotFoundError', 'an unknown book keeps its error kind across the modules');
  assert.equal(out.badPage, 'ConfigError');
  assert.equal(out.closed, 'StorageError');
  assert.deepEqual(problems, []);
});

test('events are frozen: a listener that changes one (and throws) changes nothing for the next listener or the stream', async () => {
  const { page, problems } = await lecternPage();
  const out = await page.evaluate(async () => {
    const second = [];
    const lectern = await window.open({
      onEvent: (event) => {
        event.type = 'changed'; // throws: the event is frozen (module code is strict)
      },
    });
    lectern.subscribe((event) => second.push({ type: event.type, frozen: Object.isFrozen(event) }));
    // A book conversation: its finish event carries its sources, objects in an array.
    const book = await lectern.addBook({ title: 'Frozen', text: window.book(20) });
    const chat = await lectern.createConversation({ bookId: book.id });
    const streamed = [];
    for await (const event of lectern.stream(chat.id, 'hello')) {
      streamed.push(event);
    }
    const finish = streamed.find((e) => e.type === 'finish');
    const nested = [finish.sources, ...(finish.sources ?? [])].filter((v) => v && typeof v === 'object');
    await lectern.close();
    return {
      types: second.map((e) => e.type),
      allFrozen: second.every((e) => e.frozen) && streamed.every((e) => Object.isFrozen(e)),
      nestedCount: nested.length,
      nestedFrozen: nested.length > 0 && nested.every((v) => Object.isFrozen(v)),
    };
  });
  assert.ok(out.types.includes('finish'), `${out.types}`);
  assert.ok(!out.types.includes('changed'), 'the first listener changed nothing');
  assert.ok(out.nestedCount >= 2, `the finish event's sources: ${out.nestedCount}`);
  assert.equal(out.allFrozen, true);
  assert.equal(out.nestedFrozen, true, 'objects inside an event are frozen too');
  assert.deepEqual(problems, []);
});

test("a provider's baseUrl given as a path is resolved against the page: '/v1' asks the page's own server", async () => {
  const { page, problems } = await lecternPage();
  const before = running.demo.requestsFor('/v1/chat/completions');
  const out = await page.evaluate(async () => {
    const lectern = await window.Lectern.open({ provider: { kind: 'openai', baseUrl: '/v1', model: 'm', apiKey: 'k', maxRetries: 0 } });
    const chat = await lectern.createConversation({});
    const sent = await window.attempt(() => lectern.send(chat.id, 'hello from the page'));
    await lectern.close();
    return { error: sent.error, text: sent.ok?.text };
  });
  // The demo server forwards its /v1 to the mock (which echoes): not a ConfigError at open.
  assert.equal(out.error, undefined);
  assert.equal(out.text, 'Mock reply to: hello from the page');
  assert.equal(running.demo.requestsFor('/v1/chat/completions') - before, 1, "one request reached the page's own server");
  assert.deepEqual(problems, []);
});
