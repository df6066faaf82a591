// The HNSW build of a 53,901-passage book inside Lectern's worker, in headless
// Chromium against the built pkg/: the real MiniLM vectors of
// ../shared/fixtures/embeddings, one passage a page ("Passage 17 of …"), each
// embedded as its fixture row by a custom embedder. Prints the time from
// `addBook` resolving (the book stored, searched exactly) to the index in use,
// and `search()` end to end before and after; asserts nothing.
//
//   LECTERN_FIXTURES_DIR=../shared/fixtures node benches/worker_index.mjs
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemo } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/js/browser.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
process.env.LECTERN_FIXTURES_DIR ??= resolve(root, '../shared/fixtures');
if (!existsSync(resolve(process.env.LECTERN_FIXTURES_DIR, 'embeddings/gutenberg-minilm-384.f16'))) {
  console.log(`SKIPPED: no MiniLM fixture under ${process.env.LECTERN_FIXTURES_DIR}`);
  process.exit(0);
}

const demo = await startDemo({ port: 0, chunkDelayMs: 0 });
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`${demo.url}blank`);
  const f = await page.evaluate(
    async ({ mockUrl }) => {
      const bytes = new Uint16Array(await (await fetch(`${mockUrl}/fixtures/embeddings/gutenberg-minilm-384.f16`)).arrayBuffer());
      const half = (h) => {
        const exponent = (h >> 10) & 31;
        const fraction = h & 1023;
        const sign = h & 32768 ? -1 : 1;
        if (exponent === 0) return sign * fraction * 2 ** -24;
        if (exponent === 31) return fraction ? NaN : sign * Infinity;
        return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
      };
      const table = new Float32Array(65536).map((_, h) => half(h));
      const rows = bytes.length / 384;
      const vectors = new Float32Array(bytes.length).map((_, i) => table[bytes[i]]);
      const row = (text) => vectors.slice(Number(/\d+/.exec(text)[0]) * 384, (Number(/\d+/.exec(text)[0]) + 1) * 384);
      const { default: init, Lectern } = await import('/pkg/lectern.js');
      await init();
      const lectern = await Lectern.open({
        dbName: `worker-index-${Date.now()}`,
        provider: { kind: 'openai', baseUrl: `${mockUrl}/v1`, model: 'mock', apiKey: 'k' },
        embedder: { kind: 'custom', model: 'minilm-fixture', embed: async (texts) => texts.map(row) },
        // One sentence of ~60 characters a page, chunks too small for two: one chunk a passage.
        retrieval: { chunkChars: 100, overlapChars: 0 },
      });
      const pages = Array.from({ length: rows }, (_, i) => `Passage ${i} of the MiniLM fixture, a sentence alone.`);
      const started = performance.now();
      const book = await lectern.addBook({ title: 'MiniLM fixture', pages });
      const stored = performance.now();
      const searchP50 = async () => {
        const timings = [];
        for (let q = 0; q < 100; q++) {
          const start = performance.now();
          await lectern.search(`Passage ${(q * 523) % rows} of the MiniLM fixture.`, { bookIds: [book.id], k: 10 });
          timings.push(performance.now() - start);
        }
        return timings.sort((a, b) => a - b)[50];
      };
      const exactP50 = await searchP50();
      while ((await lectern.indexSource(book.id)) === 'building') await new Promise((r) => setTimeout(r, 100));
      const indexed = performance.now();
      const source = await lectern.indexSource(book.id);
      const indexP50 = await searchP50();
      await lectern.close();
      return { rows, chunks: book.chunkCount, source, stored: stored - started, build: indexed - stored, exactP50, indexP50 };
    },
    { mockUrl: demo.mockUrl },
  );
  console.log(
    `addBook of ${f.rows} MiniLM passages (${f.chunks} chunks) with the worker: stored in ${(f.stored / 1000).toFixed(1)} s; ` +
      `index ${f.source} ${(f.build / 1000).toFixed(1)} s later; search() end to end p50 ${f.exactP50.toFixed(2)} ms exact, ` +
      `${f.indexP50.toFixed(2)} ms through the index`,
  );
  if (f.source === 'built' && f.chunks === f.rows) {
    console.log(`FIGURE ann_build_${f.rows} chromium ${f.build / 1000}`);
    console.log(`FIGURE search_exact_${f.rows} chromium ${f.exactP50}`);
    console.log(`FIGURE search_index_${f.rows} chromium ${f.indexP50}`);
  }
} finally {
  await browser.close();
  await demo.close();
}
