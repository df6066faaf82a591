// Issue 32's first measurement: candle's quantized Llama (bench/candle-probe: candle 0.11.1 built
// for wasm32 with simd128) beside wllama 3 (llama.cpp in wasm, no SIMD kernels) on the same
// SmolLM2-135M-Instruct GGUFs, one thread, in the same headless Chromium (COOP/COEP page).
// candle reads 66 token ids, wllama a text of about as many tokens; each then generates 25 greedily. Prints FIGURE lines
// (tokens/s); asserts nothing.
//
//   node benches/candle_probe.mjs <probe pkg dir> <model.gguf>…
import { basename, dirname } from 'node:path';
import { launchChromium } from '../tests/js/browser.mjs';
import { root, wllamaFiles } from '../tests/js/local/fixtures.mjs';
import { startIsolatedServer } from '../tests/js/local/isolated-server.mjs';

const [probeDir, ...models] = process.argv.slice(2);
const fixtures = wllamaFiles(); // only wllama: the models come as arguments
if (fixtures.skip) {
  console.log(fixtures.skip);
  process.exit(0);
}
const mounts = { '/': `${root}/tests/js/local/page`, '/probe/': probeDir, '/wllama/': fixtures.wllamaDir };
models.forEach((path, i) => (mounts[`/m${i}/`] = dirname(path)));
const server = await startIsolatedServer(mounts);
const browser = await launchChromium();
const PROMPT = Array.from({ length: 66 }, (_, i) => 1000 + ((i * 7919) % 40000));
const GENERATED = 25;
// About as many tokens for wllama, which takes text (its timings give the exact count).
const TEXT = 'What is the capital of France? Answer in one short sentence please. Then explain why it is a nice city to visit in spring, in a few words, and name one museum there that a visitor should see.';

/** candle in the page: load, read the prompt's ids, generate greedily; milliseconds of each. */
async function candle({ url, prompt, generated }) {
  const probe = await import('/probe/candle_probe.js');
  await probe.default();
  const started = performance.now();
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const model = new probe.Probe(bytes);
  const loaded = performance.now();
  let next = model.read(Uint32Array.from(prompt));
  const read = performance.now();
  const ids = [next];
  for (let i = 1; i < generated; i += 1) ids.push((next = model.read(Uint32Array.of(next))));
  const done = performance.now();
  return { loadMs: loaded - started, promptN: prompt.length, promptMs: read - loaded, genN: generated - 1, genMs: done - read, ids };
}

/** wllama in the page: a completion of `generated` tokens (greedy) and its own timings. */
async function wllama({ url, text, generated }) {
  const { Wllama } = await import('/wllama/index.js');
  // Quiet, as the site runs it: wllama's native and debug logs cost it half its speed.
  const quiet = { debug() {}, log() {}, warn: console.warn, error: console.error };
  const w = new Wllama({ default: '/wllama/wasm/wllama.wasm' }, { logger: quiet, suppressNativeLog: true });
  w.setCompat?.(null);
  const started = performance.now();
  await w.loadModelFromUrl(new URL(url, location.href).href, { n_ctx: 512, n_batch: 512, n_threads: 1 });
  const loaded = performance.now();
  let timings = null;
  const chunks = await w.createCompletion({ prompt: text, stream: true, max_tokens: generated, temp: 0, top_k: 1, ignore_eos: true });
  for await (const chunk of chunks) if (chunk.timings) timings = chunk.timings;
  await w.exit();
  return { loadMs: loaded - started, promptN: timings.prompt_n, promptMs: timings.prompt_ms, genN: timings.predicted_n, genMs: timings.predicted_ms, ids: [] };
}

const tps = (tokens, ms) => (tokens / (ms / 1000)).toFixed(1);
try {
  for (const [i, path] of models.entries()) {
    const url = `/m${i}/${basename(path)}`;
    const quant = /\.(Q[0-9A-Z_]+)\.gguf$/i.exec(path)?.[1] ?? basename(path);
    for (const [runtime, run] of [['candle', candle], ['wllama', wllama]]) {
      const page = await browser.newPage();
      await page.goto(server.url);
      let r;
      try {
        r = await page.evaluate(run, { url, prompt: PROMPT, text: TEXT, generated: GENERATED });
      } catch (e) {
        console.log(`${runtime} ${quant}: FAILED ${e.message.split('\n')[0]}`);
        await page.close();
        continue;
      }
      await page.close();
      console.log(
        `${runtime} ${quant}: loaded in ${(r.loadMs / 1000).toFixed(2)} s; ${r.promptN} prompt tokens at ${tps(r.promptN, r.promptMs)} tokens/s; ` +
          `${r.genN} generated at ${tps(r.genN, r.genMs)} tokens/s`,
      );
      console.log(`FIGURE probe_${runtime}_${quant}_prompt_tps chromium ${tps(r.promptN, r.promptMs)}`);
      console.log(`FIGURE probe_${runtime}_${quant}_gen_tps chromium ${tps(r.genN, r.genMs)}`);
    }
  }
} finally {
  await browser.close();
  await server.close();
}
