// The Thursday fixture (320 KB) added with `embedder: { kind: 'minilm' }` in
// headless Chromium against the built pkg/: the model's files loaded by the
// worker (from this origin, then from the Cache API), every chunk embedded
// there with progress, then `search()` end to end (the query embedded in the
// worker). Prints FIGURE lines; asserts nothing.
//
//   LECTERN_MINILM_DIR=… node benches/minilm_worker.mjs ../shared/fixtures/books/chesterton-thursday.txt
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDemo } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/js/browser.mjs';

const bookPath = process.argv[2];
const dir = process.env.LECTERN_MINILM_DIR;
if (!dir || !existsSync(join(dir, 'model.safetensors'))) {
  console.log('SKIPPED: no MiniLM files (LECTERN_MINILM_DIR, scripts/fetch-minilm.sh)');
  process.exit(0);
}
if (!bookPath || !existsSync(bookPath)) {
  console.log(`SKIPPED: no book at ${bookPath}`);
  process.exit(0);
}
const text = readFileSync(bookPath, 'utf8');

const demo = await startDemo({ port: 0, chunkDelayMs: 0 });
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`${demo.url}blank`);
  const f = await page.evaluate(
    async ({ baseUrl, text }) => {
      const { default: init, Lectern } = await import('/pkg/lectern.js');
      await init();
      const open = () =>
        Lectern.open({
          provider: { kind: 'openai', baseUrl, model: 'mock', apiKey: 'k' },
          embedder: { kind: 'minilm', modelUrl: '/models/model.safetensors', vocabUrl: '/models/vocab.txt' },
        });
      const run = async () => {
        const lectern = await open();
        const marks = {};
        let progressEvents = 0;
        const started = performance.now();
        const onProgress = (p) => {
          progressEvents += 1;
          if (p.phase !== 'loading') marks.loaded ??= performance.now();
        };
        const book = await lectern.addBook({ title: 'The Man Who Was Thursday', text }, { onProgress });
        const stored = performance.now();
        const timings = [];
        for (const query of ['Why does the old professor follow Syme?', 'a duel at dawn', 'the anarchist council meets over breakfast', 'Who is Sunday?', 'a chase through the snow']) {
          const start = performance.now();
          await lectern.search(query, { k: 5, maxPage: 60 });
          timings.push(performance.now() - start);
        }
        await lectern.close();
        timings.sort((a, b) => a - b);
        return {
          load: marks.loaded - started,
          embed: stored - marks.loaded,
          chunks: book.chunkCount,
          progressEvents,
          searchP50: timings[2],
        };
      };
      const cold = await run(); // the files fetched from this origin
      const warm = await run(); // the files read from the Cache API
      return { cold, warm };
    },
    { baseUrl: `${demo.mockUrl}/v1`, text },
  );
  const s = (ms) => (ms / 1000).toFixed(1);
  console.log(`MiniLM in the worker: Thursday (${text.length} chars, ${f.warm.chunks} chunks, ${f.warm.progressEvents} progress events)`);
  console.log(`  model load: ${s(f.cold.load)} s fetched, ${s(f.warm.load)} s from the Cache API`);
  console.log(`  embedding: ${s(f.cold.embed)} s and ${s(f.warm.embed)} s (${(f.warm.chunks / (f.warm.embed / 1000)).toFixed(2)} chunks/s)`);
  console.log(`  search() end to end, query embedded in the worker: p50 ${f.warm.searchP50.toFixed(1)} ms`);
  console.log(`FIGURE minilm_thursday_worker_s chromium ${((f.warm.load + f.warm.embed) / 1000).toFixed(1)}`);
  console.log(`FIGURE minilm_model_load_cached_ms chromium ${f.warm.load.toFixed(0)}`);
  console.log(`FIGURE minilm_model_load_fetched_ms chromium ${f.cold.load.toFixed(0)}`);
  console.log(`FIGURE minilm_search_p50_ms chromium ${f.warm.searchP50.toFixed(1)}`);
} finally {
  await browser.close();
  await demo.close();
}
