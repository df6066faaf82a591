// The page's longest main-thread task while `addBook` ingests 1.3 MB of text
// (four copies of The Man Who Was Thursday) with the default embedder, until
// the book's index is in use, in headless Chromium against the built pkg/:
// with Lectern's worker and with `worker: false` (paced in the page). Prints
// figures; it asserts nothing.
//
//   node benches/longtask.mjs [path/to/chesterton-thursday.txt]
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemo } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/js/browser.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const fixture = process.argv[2] ?? resolve(root, '../shared/fixtures/books/chesterton-thursday.txt');

let one;
try {
  one = await readFile(fixture, 'utf8');
} catch {
  console.log(`SKIPPED: no fixture at ${fixture}`);
  process.exit(0);
}
const text = [one, one, one, one].join('\n\n');

const demo = await startDemo({ port: 0, chunkDelayMs: 0 });
const browser = await launchChromium();
try {
  for (const worker of [true, false]) {
    const page = await browser.newPage();
    await page.goto(`${demo.url}blank`);
    const figures = await page.evaluate(
      async ({ text, worker, baseUrl }) => {
        const { default: init, Lectern } = await import('/pkg/lectern.js');
        await init();
        const lectern = await Lectern.open({
          dbName: `longtask-${worker}`,
          provider: { kind: 'openai', baseUrl, model: 'mock', apiKey: 'k' },
          worker,
        });
        const longTasks = [];
        let started = performance.now();
        const starts = [];
        const observer = new PerformanceObserver((list) => {
          for (const e of list.getEntries()) {
            longTasks.push(e.duration);
            starts.push(Math.round(e.startTime - started));
          }
        });
        observer.observe({ type: 'longtask' });
        let last = performance.now();
        let maxGap = 0;
        let ticks = 0;
        let running = true;
        const tick = () => {
          const now = performance.now();
          maxGap = Math.max(maxGap, now - last);
          last = now;
          ticks += 1;
          if (running) setTimeout(tick, 0);
        };
        setTimeout(tick, 0);
        started = performance.now();
        const book = await lectern.addBook({ title: 'Thursday x4', text });
        const elapsed = performance.now() - started;
        // With the worker the index is built after addBook resolved: measure until it is in use.
        while ((await lectern.indexSource(book.id)) === 'building') await new Promise((r) => setTimeout(r, 20));
        const indexed = performance.now() - started;
        running = false;
        await new Promise((r) => setTimeout(r, 100));
        observer.disconnect();
        const index = await lectern.indexSource(book.id);
        await lectern.close();
        return {
          chars: text.length,
          chunks: book.chunkCount,
          index,
          elapsed,
          indexed,
          ticks,
          maxGap,
          longest: Math.max(0, ...longTasks),
          longCount: longTasks.length,
          longTotal: longTasks.reduce((a, b) => a + b, 0),
          starts,
        };
      },
      { text, worker, baseUrl: `${demo.mockUrl}/v1` },
    );
    const f = figures;
    console.log(
      `addBook ${(f.chars / 1e6).toFixed(2)} M chars, ${f.chunks} chunks (index: ${f.index}), ` +
        `${worker ? 'worker' : 'worker: false (in page)'}: resolved in ${f.elapsed.toFixed(0)} ms, index in use at ${f.indexed.toFixed(0)} ms; ` +
        `longest main-thread task ${f.longest.toFixed(0)} ms (${f.longCount} long tasks, ${f.longTotal.toFixed(0)} ms in all); ` +
        `largest setTimeout(0) gap ${f.maxGap.toFixed(0)} ms over ${f.ticks} ticks` +
        (f.starts.length ? `; long tasks began at ${f.starts.join(", ")} ms` : ""),
    );
    // The longest task the page saw: a long task, or the largest timer gap
    // (no task can be longer than the gap it makes), for bench/RESULTS.md.
    console.log(`FIGURE longtask_${worker ? 'worker' : 'page'} chromium ${Math.max(f.longest, f.maxGap)}`);
    await page.close();
  }
} finally {
  await browser.close();
  await demo.close();
}
