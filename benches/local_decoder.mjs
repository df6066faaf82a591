// Lectern's own decoder (lectern/local, a module Worker running lectern_local_relaxed_bg.wasm on
// simd128 with relaxed SIMD, and the plain lectern_local_bg.wasm for comparison)
// beside wllama 3.8.1 (llama.cpp in wasm, no SIMD kernels) on the same GGUF, the same prompt and
// the same headless Chromium: prompt reading and generation in tokens/s, one thread each, and the
// follow-up whose prompt starts with the first one's (the prefix cache); then both on two threads
// (the page is cross-origin isolated: Lectern's threaded build with one helper Worker, wllama's
// pthreads); then the same for the base Gemma 3 270M (Q4_K_M: Q5_0, Q8_0, Q4_K and Q6_K tensors, a
// 262k-token output layer) when scripts/fetch-gemma3.sh can fetch it. Prints FIGURE lines.
//
//   node benches/local_decoder.mjs        (fetches SmolLM2 like the tests; SKIPPED offline)
import { basename } from 'node:path';
import { launchChromium } from '../tests/js/browser.mjs';
import { gemmaFixture, localFixtures, localMounts } from '../tests/js/local/fixtures.mjs';
import { startIsolatedServer } from '../tests/js/local/isolated-server.mjs';
import { LONG_CHAT_PROMPT as LONG } from './local_prompts.mjs';

const fixtures = localFixtures();
if (fixtures.skip) {
  console.log(fixtures.skip);
  process.exit(0);
}
const gemma = gemmaFixture();
const server = await startIsolatedServer({
  ...localMounts(fixtures),
  ...gemma.mount,
});
const browser = await launchChromium();
const model = `/models/${basename(fixtures.model)}`;
const SHORT = 'What is the capital of France? Answer in one short sentence please. Then explain why it is a nice city to visit in spring, in a few words.';
const PROMPT = `<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\n${SHORT}<|im_end|>\n<|im_start|>assistant\n`;
const TOKENS = 32;
const GEMMA_PROMPT = `Gabriel Syme was a poet who became a detective. ${SHORT} The man who was Thursday walked along the river at night, thinking of anarchy and poetry.\n\nAnswer:`;

const fmt = (v) => v.toFixed(1);
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  const ours = await page.evaluate(ourRuns, {
    model,
    prompts: [PROMPT, PROMPT + 'The capital of France is Paris.<|im_end|>\n<|im_start|>user\nAnd of Italy?<|im_end|>\n<|im_start|>assistant\n', LONG],
    tokens: TOKENS,
    threads: 1,
    profile: true,
  });
  const wllama = (
    await page.evaluate(async (options) => (await import('/session.js')).greedyCompletions(options), { model, prompts: [PROMPT, LONG], tokens: TOKENS })
  ).map((answer) => answer.timings);
  const [first, follow, long] = ours.runs;
  const tps = (n, ms) => (n * 1000) / ms;
  console.log(`Lectern's decoder: loaded in ${(ours.loadMs / 1000).toFixed(2)} s (${ours.relaxedSimd ? 'the relaxed-SIMD build' : 'the plain SIMD build: no relaxed SIMD here'})`);
  for (const [name, run, theirs] of [['66-token prompt', first, wllama[0]], ['long prompt', long, wllama[1]]]) {
    const read = tps(run.promptTokens - run.cached, run.readMs);
    const gen = tps(run.generated, run.generateMs);
    console.log(`${name}: Lectern reads ${run.promptTokens} tokens at ${fmt(read)} tokens/s, generates ${run.generated} at ${fmt(gen)} tokens/s; ` +
      `wllama reads ${theirs.prompt_n} at ${fmt(theirs.prompt_per_second)}, generates at ${fmt(theirs.predicted_per_second)}`);
  }
  console.log(`first answer: ${JSON.stringify(first.text)}`);
  console.log(`follow-up: ${follow.promptTokens} prompt tokens, ${follow.cached} from the cache, read in ${(follow.readMs / 1000).toFixed(2)} s (a fresh read of the first prompt took ${(first.readMs / 1000).toFixed(2)} s)`);
  console.log(`FIGURE local_decoder_prompt_tps chromium ${fmt(tps(first.promptTokens, first.readMs))}`);
  console.log(`FIGURE local_decoder_gen_tps chromium ${fmt(tps(first.generated, first.generateMs))}`);
  console.log(`FIGURE local_decoder_long_prompt_tps chromium ${fmt(tps(long.promptTokens, long.readMs))}`);
  console.log(`FIGURE local_decoder_wllama_prompt_tps chromium ${fmt(wllama[0].prompt_per_second)}`);
  console.log(`FIGURE local_decoder_wllama_gen_tps chromium ${fmt(wllama[0].predicted_per_second)}`);
  console.log(`FIGURE local_decoder_followup_cached chromium ${follow.cached}`);
  stageFigures(long, '');
  generationStageFigures(first, '');
  // The plain SIMD build (what browsers without relaxed SIMD run) on the same long prompt.
  const plain = await page.evaluate(ourRuns, { model, prompts: [LONG], tokens: TOKENS, threads: 1, relaxedSimd: false });
  const [plainLong] = plain.runs;
  console.log(`the plain SIMD build reads the ${plainLong.promptTokens}-token prompt at ${fmt(tps(plainLong.promptTokens, plainLong.readMs))} tokens/s, generates at ${fmt(tps(plainLong.generated, plainLong.generateMs))}`);
  console.log(`FIGURE local_decoder_plain_long_prompt_tps chromium ${fmt(tps(plainLong.promptTokens, plainLong.readMs))}`);
  console.log(`FIGURE local_decoder_plain_gen_tps chromium ${fmt(tps(plainLong.generated, plainLong.generateMs))}`);
  await twoThreads(page, 'SmolLM2', model, PROMPT, '', LONG);
  if (gemma.skip) console.log(`Gemma 3 270M: ${gemma.skip}`);
  else await gemmaFigures(page, gemma.url);
} finally {
  await browser.close();
  await server.close();
}

/**
 * The base Gemma 3 270M, both runtimes, a plain-text prompt of ~60 tokens (no chat template in its
 * GGUF): reading, generation, load.
 */
async function gemmaFigures(page, gemmaModel) {
  const prompt = GEMMA_PROMPT;
  const ours = await page.evaluate(ourRuns, { model: gemmaModel, prompts: [prompt], tokens: TOKENS, threads: 1, profile: true });
  const [theirs] = await page.evaluate(
    async (options) => (await import('/session.js')).greedyCompletions(options),
    { model: gemmaModel, prompts: [prompt], tokens: TOKENS },
  );
  const [run] = ours.runs;
  const tps = (n, ms) => (n * 1000) / ms;
  const read = tps(run.promptTokens, run.readMs);
  const gen = tps(run.generated, run.generateMs);
  console.log(`Gemma 3 270M: Lectern loads in ${(ours.loadMs / 1000).toFixed(2)} s, reads ${run.promptTokens} tokens at ${fmt(read)} tokens/s, ` +
    `generates ${run.generated} at ${fmt(gen)} tokens/s; wllama reads ${theirs.timings.prompt_n} at ${fmt(theirs.timings.prompt_per_second)}, ` +
    `generates at ${fmt(theirs.timings.predicted_per_second)}`);
  console.log(`Gemma 3 answers: Lectern ${JSON.stringify(run.text)}; wllama ${JSON.stringify(theirs.text)}`);
  console.log(`FIGURE local_decoder_gemma3_prompt_tps chromium ${fmt(read)}`);
  console.log(`FIGURE local_decoder_gemma3_gen_tps chromium ${fmt(gen)}`);
  console.log(`FIGURE local_decoder_gemma3_load_s chromium ${(ours.loadMs / 1000).toFixed(2)}`);
  stageFigures(run, '', 'gemma3');
  generationStageFigures(run, '', 'gemma3_gen');
  console.log(`FIGURE local_decoder_gemma3_wllama_prompt_tps chromium ${fmt(theirs.timings.prompt_per_second)}`);
  console.log(`FIGURE local_decoder_gemma3_wllama_gen_tps chromium ${fmt(theirs.timings.predicted_per_second)}`);
  await twoThreads(page, 'Gemma 3 270M', gemmaModel, prompt, 'gemma3_');
}

/** Both runtimes on two threads, `prompt` read and continued (and `long`, by Lectern's decoder,
 * when given): FIGURE lines named `local_decoder_<prefix>…_2t`. */
async function twoThreads(page, name, model, prompt, prefix, long) {
  const prompts = long ? [prompt, long] : [prompt];
  const ours = await page.evaluate(ourRuns, { model, prompts, tokens: TOKENS, threads: 2, profile: true });
  const [theirs] = await page.evaluate(
    async (options) => (await import('/session.js')).greedyCompletions(options),
    { model, prompts: [prompt], tokens: TOKENS, threads: 2 },
  );
  const [run] = ours.runs;
  const tps = (n, ms) => (n * 1000) / ms;
  const read = tps(run.promptTokens, run.readMs);
  const gen = tps(run.generated, run.generateMs);
  console.log(`${name}, two threads: Lectern (${ours.threads} threads) reads ${run.promptTokens} tokens at ${fmt(read)} tokens/s, generates ${run.generated} at ${fmt(gen)}; ` +
    `wllama reads at ${fmt(theirs.timings.prompt_per_second)}, generates at ${fmt(theirs.timings.predicted_per_second)}`);
  if (ours.threads !== 2) throw new Error(`Lectern's decoder ran on ${ours.threads} thread(s), not 2`);
  console.log(`FIGURE local_decoder_${prefix}prompt_tps_2t chromium ${fmt(read)}`);
  console.log(`FIGURE local_decoder_${prefix}gen_tps_2t chromium ${fmt(gen)}`);
  if (!prefix) generationStageFigures(run, '_2t');
  // How much of the shared work the helper Worker took (0.5: an even split).
  const share = (v) => (typeof v === 'number' ? v.toFixed(2) : 'none shared');
  console.log(`${name}, two threads: the helper Worker ran ${share(run.readHelperShare)} of the prompt's shared parts, ${share(run.generateHelperShare)} of the generation's`);
  if (typeof run.readHelperShare === 'number') console.log(`FIGURE local_decoder_${prefix}helper_share_read_2t chromium ${run.readHelperShare.toFixed(2)}`);
  if (typeof run.generateHelperShare === 'number') console.log(`FIGURE local_decoder_${prefix}helper_share_gen_2t chromium ${run.generateHelperShare.toFixed(2)}`);
  if (long) {
    const run = ours.runs[1];
    console.log(`${name}, two threads: Lectern reads the ${run.promptTokens}-token prompt at ${fmt(tps(run.promptTokens, run.readMs))} tokens/s`);
    console.log(`FIGURE local_decoder_${prefix}long_prompt_tps_2t chromium ${fmt(tps(run.promptTokens, run.readMs))}`);
    stageFigures(run, '_2t');
  }
  console.log(`FIGURE local_decoder_${prefix}wllama_prompt_tps_2t chromium ${fmt(theirs.timings.prompt_per_second)}`);
  console.log(`FIGURE local_decoder_${prefix}wllama_gen_tps_2t chromium ${fmt(theirs.timings.predicted_per_second)}`);
}

/** Where `run`'s prompt reading went, stage by stage (the decoder's clock): FIGURE lines `local_decoder_<name>_stage_…`. */
function stageFigures(run, suffix, name = 'long') {
  const total = Object.values(run.stages).reduce((a, b) => a + b, 0);
  const shares = Object.entries(run.stages).map(([stage, ms]) => `${stage} ${fmt(ms)} ms (${Math.round((100 * ms) / total)} %)`);
  console.log(`the ${run.promptTokens}-token prompt's ${fmt(run.readMs)} ms${suffix ? ' on two threads' : ''}, by stage: ${shares.join(', ')}`);
  for (const [stage, ms] of Object.entries(run.stages)) {
    console.log(`FIGURE local_decoder_${name}_stage_${stage}_ms${suffix} chromium ${fmt(ms)}`);
  }
}

/** Where `run`'s generation went, stage by stage, the rest being sampling and the Worker's
 * messages: FIGURE lines `local_decoder_<name>_stage_…` of ms per generated token. */
function generationStageFigures(run, suffix, name = 'gen') {
  const perToken = (ms) => ms / run.generated;
  const staged = Object.values(run.generateStages).reduce((a, b) => a + b, 0);
  const stages = { ...run.generateStages, samplingAndMessages: run.generateMs - staged };
  const shares = Object.entries(stages).map(([stage, ms]) => `${stage} ${perToken(ms).toFixed(2)} ms (${Math.round((100 * ms) / run.generateMs)} %)`);
  console.log(`generating ${run.generated} tokens took ${fmt(perToken(run.generateMs))} ms a token${suffix ? ' on two threads' : ''}, by stage: ${shares.join(', ')}`);
  for (const [stage, ms] of Object.entries(stages)) {
    console.log(`FIGURE local_decoder_${name}_stage_${stage}_ms_per_token${suffix} chromium ${perToken(ms).toFixed(2)}`);
  }
}

/** In the page: Lectern's decoder on `threads` threads reading each of `prompts` and generating up to `tokens`. */
async function ourRuns({ model, prompts, tokens, threads, profile = false, relaxedSimd = true }) {
  const { LocalModel } = await import('/pkg/lectern_local_provider.js');
  const local = new LocalModel(model, { cacheName: null, threads, relaxedSimd });
  await local.ready;
  const runs = [];
  for (const prompt of prompts) {
    const run = { text: '' };
    const asked = performance.now();
    for await (const m of local.generate(prompt, { maxTokens: tokens, profile })) {
      if (m.type === 'read') Object.assign(run, { promptTokens: m.promptTokens, cached: m.cachedTokens, readMs: m.ms, stages: m.stages, readHelperShare: m.helperShare });
      if (m.type === 'delta') {
        run.firstMs ??= performance.now() - asked;
        run.text += m.text;
      }
      if (m.type === 'done') Object.assign(run, { generated: m.completionTokens, generateMs: m.ms, generateStages: m.stages, generateHelperShare: m.helperShare });
    }
    runs.push(run);
  }
  local.close();
  return { loadMs: local.loadMs, threads: local.threads, relaxedSimd: local.relaxedSimd, runs };
}
