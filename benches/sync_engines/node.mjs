// Issue 50: the engines' wasm modules (run.sh's, after wasm-opt -Oz) timed in node, best of 5:
// building and encoding the 1,000-message conversation, and the sync step of a day offline
// (`*_merge_timed`: the two diverged replicas are built first, outside the timing). Node is not a
// browser, but it runs the same wasm engine (V8) as Chromium.
//
//   node benches/sync_engines/node.mjs <dir>    <dir>/<engine>/: wasm-bindgen's output (run.sh)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const RUNS = 5;
const [MESSAGES, OFFLINE_MESSAGES, OFFLINE_POSITIONS] = [1000, 200, 50];

/** The best of `RUNS` values of `measure()` (each a duration in ms). */
function best(measure) {
  let min = Infinity;
  for (let i = 0; i < RUNS; i++) min = Math.min(min, measure());
  return min;
}

/** `f()`'s wall time in ms. */
function timed(f) {
  const start = performance.now();
  f();
  return performance.now() - start;
}

const dir = process.argv[2];
for (const [engine, prefix] of [['yrs', 'y'], ['automerge', 'am']]) {
  const name = `sync_bench_${engine}`;
  const module = await import(pathToFileURL(join(dir, engine, `${name}.js`)).href);
  module.initSync({ module: readFileSync(join(dir, engine, `${name}_bg.opt.wasm`)) });
  const build = best(() => timed(() => module[`${prefix}_build_encode`](MESSAGES)));
  const merge = best(() => module[`${prefix}_merge_timed`](MESSAGES, OFFLINE_MESSAGES, OFFLINE_POSITIONS));
  console.log(`${engine} wasm in node ${process.version}: build + encode 1000 msgs ${build.toFixed(1)} ms; day-offline sync step ${merge.toFixed(1)} ms (best of ${RUNS})`);
  console.log(`FIGURE sync_${engine}_wasm_build_ms native ${build.toFixed(3)}`);
  console.log(`FIGURE sync_${engine}_wasm_merge_ms native ${merge.toFixed(3)}`);
}
