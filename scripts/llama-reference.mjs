// Prints llama.cpp's greedy continuation of fixed prompts (wllama 3.8.1 in headless Chromium,
// one thread, temperature 0), as JSON: the reference the decoder's native tests read. Each
// step's chosen token and its three likeliest, with their log-probabilities, are kept too.
// Skips with a message without the model (scripts/fetch-smollm2.sh, scripts/fetch-gemma3.sh).
//
//   node scripts/llama-reference.mjs > tests/fixtures/local/smollm2-greedy.json
//   node scripts/llama-reference.mjs gemma3 > tests/fixtures/local/gemma3-greedy.json
import { basename, dirname } from 'node:path';
import { launchChromium } from '../tests/js/browser.mjs';
import { fetched, localFixtures, localMounts } from '../tests/js/local/fixtures.mjs';
import { startIsolatedServer } from '../tests/js/local/isolated-server.mjs';

const MODELS = {
  // SmolLM2-135M-Instruct: ChatML prompts.
  smollm2: [
    '<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n',
    '<|im_start|>system\nAnswer from the passages.<|im_end|>\n<|im_start|>user\nPassage: Gabriel Syme was a poet who became a detective. He met Lucian Gregory in Saffron Park in 1904.\n\nWho is Gabriel Syme?<|im_end|>\n<|im_start|>assistant\n',
  ],
  // The base Gemma 3 270M: plain text to continue (its GGUF has no chat template).
  gemma3: [
    'The capital of France is',
    'Gabriel Syme was a poet who became a detective. He met Lucian Gregory in Saffron Park in 1904.\n\nQuestion: Who is Gabriel Syme?\nAnswer:',
  ],
};
const TOKENS = 32;

const name = process.argv[2] ?? 'smollm2';
if (!MODELS[name]) {
  console.error(`usage: node scripts/llama-reference.mjs [${Object.keys(MODELS).join('|')}]`);
  process.exit(2);
}
const fixtures = localFixtures();
const model = name === 'gemma3' ? fetched('LECTERN_GEMMA3', 'fetch-gemma3.sh') : { value: fixtures.model };
const skip = fixtures.skip ?? model.skip;
if (skip) {
  console.error(skip);
  process.exit(0);
}
const server = await startIsolatedServer({ ...localMounts(fixtures), '/models/': dirname(model.value) });
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  const prompts = MODELS[name];
  const answers = await page.evaluate(
    async (options) => (await import('/session.js')).greedyCompletions(options),
    { model: `/models/${basename(model.value)}`, prompts, tokens: TOKENS },
  );
  const cases = prompts.map((prompt, i) => ({
    prompt,
    promptTokens: answers[i].timings?.prompt_n,
    text: answers[i].text,
    finish: answers[i].finish,
    steps: answers[i].steps,
  }));
  console.log(JSON.stringify({ model: basename(model.value), runtime: 'wllama 3.8.1 (llama.cpp), 1 thread, temperature 0', tokens: TOKENS, cases }, null, 1));
} finally {
  await browser.close();
  await server.close();
}
