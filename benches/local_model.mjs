// Where the time to first token goes with a local model: wllama 3 (llama.cpp in wasm) running
// SmolLM2-135M-Instruct (Q4_1) in headless Chromium on a cross-origin-isolated page, and Lectern
// asking it about the Thursday book with `alwaysRetrieve` and `retrieval.maxContextTokens`.
// Prints FIGURE lines (seconds, tokens/s); asserts nothing. wllama's own timings split each
// answer into reading the prompt (prompt_n tokens) and generating.
//
//   node benches/local_model.mjs              (fetches the model like the test; SKIPPED offline)
//   LECTERN_SMOLLM2_EXTRA=/path/other.gguf …  also times a short prompt on another quantisation
import { basename, dirname } from 'node:path';
import { launchChromium } from '../tests/js/browser.mjs';
import { localFixtures, localMounts } from '../tests/js/local/fixtures.mjs';
import { startIsolatedServer } from '../tests/js/local/isolated-server.mjs';

const fixtures = localFixtures();
if (fixtures.skip) {
  console.log(fixtures.skip);
  process.exit(0);
}
const extra = process.env.LECTERN_SMOLLM2_EXTRA;
const server = await startIsolatedServer({ ...localMounts(fixtures), ...(extra ? { '/extra/': dirname(extra) } : {}) });
const browser = await launchChromium();
const modelUrl = `/models/${basename(fixtures.model)}`;
// 66 prompt tokens with SmolLM2's chat template, and about 1,000 (five 800-character passages' worth).
const SHORT = 'What is the capital of France? Answer in one short sentence please. Then explain why it is a nice city to visit in spring, in a few words.';
const LONG = `Read this. ${'The man who was Thursday walked along the river at night, thinking of anarchy and poetry. '.repeat(55)}Who walked along the river?`;

/** Loads the model with `params` in a fresh page, asks each prompt, returns load and timings. */
async function raw(model, params, prompts) {
  const page = await browser.newPage();
  await page.goto(server.url);
  const result = await page.evaluate(
    async ({ model, params, prompts }) => {
      const { startModel } = await import('/session.js');
      const started = performance.now();
      const { wllama, ready } = startModel({ model, ...params });
      await ready;
      const loadMs = performance.now() - started;
      const answers = [];
      for (const content of prompts) {
        const asked = performance.now();
        let first = null;
        let timings = null;
        const chunks = await wllama.createChatCompletion({ messages: [{ role: 'user', content }], stream: true, max_tokens: 24, temp: 0 });
        for await (const chunk of chunks) {
          if (first === null && chunk.choices?.[0]?.delta?.content) first = performance.now() - asked;
          if (chunk.timings) timings = chunk.timings;
        }
        answers.push({ firstMs: first, timings });
      }
      const threads = wllama.getNumThreads();
      await wllama.exit();
      return { loadMs, threads, answers };
    },
    { model, params, prompts },
  );
  await page.close();
  return result;
}

const s = (ms) => (ms / 1000).toFixed(2);
function report(id, answer) {
  const t = answer.timings;
  console.log(
    `${id}: first token ${s(answer.firstMs)} s = ${t.prompt_n} prompt tokens in ${s(t.prompt_ms)} s (${t.prompt_per_second.toFixed(1)} tokens/s); ` +
      `then ${t.predicted_per_second.toFixed(1)} tokens/s`,
  );
  console.log(`FIGURE ${id} chromium ${s(answer.firstMs)}`);
  console.log(`FIGURE ${id}_prompt_tps chromium ${t.prompt_per_second.toFixed(2)}`);
  console.log(`FIGURE ${id}_gen_tps chromium ${t.predicted_per_second.toFixed(2)}`);
}

try {
  for (const threads of [1, 2]) {
    const prompts = threads === 1 ? [SHORT, LONG] : [SHORT];
    const r = await raw(modelUrl, { n_threads: threads, n_batch: 512, n_ctx: 2048 }, prompts);
    console.log(`wllama, ${threads} thread(s) (${r.threads} in use), n_batch 512, n_ctx 2048: model loaded in ${s(r.loadMs)} s`);
    console.log(`FIGURE local_load_t${threads} chromium ${s(r.loadMs)}`);
    report(`local_ttft_66_t${threads}`, r.answers[0]);
    if (r.answers[1]) report(`local_ttft_1000_t${threads}`, r.answers[1]);
  }
  const small = await raw(modelUrl, { n_threads: 1, n_batch: 32, n_ctx: 512 }, [SHORT]);
  console.log('wllama, 1 thread, n_batch 32, n_ctx 512:');
  report('local_ttft_66_t1_b32', small.answers[0]);
  if (extra) {
    const other = await raw(`/extra/${basename(extra)}`, { n_threads: 1, n_batch: 512, n_ctx: 2048 }, [SHORT]);
    console.log(`${basename(extra)}, 1 thread:`);
    report('local_ttft_66_t1_extra', other.answers[0]);
  }
  // Lectern end to end: the Thursday book (default embedder), the reader on page 40, one question.
  const SHORT_PROMPT = 'Answer in two sentences from the passages of {{book_title}} below (the reader is on page {{current_page}}).';
  for (const [budget, id, systemPrompt] of [
    [300, 'local_ttft_lectern_300', undefined],
    [120, 'local_ttft_lectern_120', SHORT_PROMPT],
  ]) {
    const page = await browser.newPage();
    await page.goto(server.url);
    const r = await page.evaluate(
      async (options) => (await import('/session.js')).readingSession(options),
      { model: modelUrl, threads: 1, maxContextTokens: budget, readerPage: 40, question: 'Who is Gabriel Syme?', maxTokens: 24, embedder: 'default', chunkChars: 400, systemPrompt },
    );
    await page.close();
    console.log(
      `Lectern, alwaysRetrieve, maxContextTokens ${budget}, chunkChars 400, ${systemPrompt ? 'a one-line' : 'the built-in'} system prompt, 1 thread: ${r.usage.inputTokens} prompt tokens, ` +
        `first token ${s(r.firstTokenMs)} s, ${r.tokensPerSecond?.toFixed(1)} tokens/s`,
    );
    console.log(`FIGURE ${id} chromium ${s(r.firstTokenMs)}`);
    console.log(`FIGURE ${id}_prompt_tokens chromium ${r.usage.inputTokens}`);
  }
} finally {
  await browser.close();
  await server.close();
}
