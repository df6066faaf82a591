// Native llama.cpp beside the in-browser runtimes of benches/local_decoder.mjs: the cached
// `llama-server` (scripts/fetch-llama-server.sh: a portable AVX2 build) serving the same
// SmolLM2-135M-Instruct Q4_1 GGUF (and the base Gemma 3 270M Q4_K_M, when scripts/fetch-gemma3.sh
// can fetch it), reading the same prompts and generating the same 32 tokens, on one thread (`-t 1`)
// and then two (`-t 2`). Prompt reading and generation in tokens/s are
// llama-server's own `timings` (prompt_per_second, predicted_per_second) from `/completion` with
// the prompt cache off; each figure is the median of three runs. Prints FIGURE lines, or a
// `SKIPPED:` line without the server or the model.
//
//   node benches/native_llama.mjs
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { gemmaFixture } from '../tests/js/local/fixtures.mjs';
import { llamaFixtures, startLlamaServer } from '../tests/real/llama-server.mjs';
import { LONG_CHAT_PROMPT as LONG } from './local_prompts.mjs';

const { PROMPT, GEMMA_PROMPT, TOKENS } = localDecoderPrompts();
const RUNS = 3;

const fixtures = llamaFixtures();
if (fixtures.skip) {
  console.log(fixtures.skip);
  process.exit(0);
}

const fmt = (v) => v.toFixed(1);
// Other work on the machine skews these figures, two threads most (llama.cpp's threads wait for
// each other at every step): say how busy it was.
const load = () => `load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

await measure('SmolLM2-135M-Instruct', fixtures, '', PROMPT, LONG);
const gemma = gemmaFixture();
if (gemma.skip) console.log(`Gemma 3 270M: ${gemma.skip}`);
else await measure('Gemma 3 270M', { ...fixtures, model: gemma.path }, 'gemma3_', GEMMA_PROMPT);

/**
 * llama-server on `model`'s GGUF, one thread then two: `prompt` read and continued (and `long`
 * read, when given). FIGURE lines named `native_llama_<prefix>…`, as benches/local_decoder.mjs's.
 */
async function measure(name, model, prefix, prompt, long) {
  for (const threads of [1, 2]) {
    const server = await startLlamaServer(model, { threads, args: ['--no-warmup'] });
    try {
      const short = await timings(server, prompt);
      const suffix = threads === 1 ? '' : '_2t';
      const read = median(short.map((t) => t.prompt_per_second));
      const gen = median(short.map((t) => t.predicted_per_second));
      console.log(
        `${name}: llama-server, ${threads} thread(s), ${load()}: reads the ${short[0].prompt_n}-token prompt at ${fmt(read)} tokens/s ` +
          `(runs: ${short.map((t) => fmt(t.prompt_per_second)).join(', ')}), generates ${short[0].predicted_n} at ${fmt(gen)} tokens/s ` +
          `(runs: ${short.map((t) => fmt(t.predicted_per_second)).join(', ')})`,
      );
      console.log(`FIGURE native_llama_${prefix}prompt_tps${suffix} native ${fmt(read)}`);
      console.log(`FIGURE native_llama_${prefix}gen_tps${suffix} native ${fmt(gen)}`);
      if (long) {
        const runs = await timings(server, long);
        const longRead = median(runs.map((t) => t.prompt_per_second));
        console.log(`${name}: llama-server, ${threads} thread(s): reads the ${runs[0].prompt_n}-token prompt at ${fmt(longRead)} tokens/s`);
        console.log(`FIGURE native_llama_${prefix}long_prompt_tps${suffix} native ${fmt(longRead)}`);
      }
    } finally {
      await server.close();
    }
  }
}

/** `RUNS` greedy completions of `prompt` with the prompt cache off: each answer's `timings`. */
async function timings(server, prompt) {
  const out = [];
  for (let i = 0; i < RUNS; i++) {
    const res = await fetch(`${server.url}/completion`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // ignore_eos: always TOKENS generated, as many as the in-browser runs ask for.
      body: JSON.stringify({ prompt, n_predict: TOKENS, temperature: 0, cache_prompt: false, ignore_eos: true }),
    });
    if (!res.ok) throw new Error(`/completion answered ${res.status}: ${await res.text()}`);
    out.push((await res.json()).timings);
  }
  return out;
}

/**
 * The prompts benches/local_decoder.mjs reads (`PROMPT`, `GEMMA_PROMPT`, `TOKENS`), taken from its
 * source: importing it would run that benchmark (the long one both import from local_prompts.mjs).
 * Throws when a declaration is no longer one line there, so the two benches cannot drift apart silently.
 */
function localDecoderPrompts() {
  const source = readFileSync(new URL('./local_decoder.mjs', import.meta.url), 'utf8');
  const lines = ['SHORT', 'PROMPT', 'TOKENS', 'GEMMA_PROMPT'].map((name) => {
    const line = new RegExp(`^const ${name} = .*;$`, 'm').exec(source);
    if (!line) throw new Error(`benches/local_decoder.mjs declares no one-line ${name}: update benches/native_llama.mjs`);
    return line[0];
  });
  return new Function(`${lines.join('\n')}\nreturn { PROMPT, GEMMA_PROMPT, TOKENS };`)();
}
