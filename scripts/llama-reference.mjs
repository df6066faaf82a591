// Prints llama.cpp's greedy continuation of fixed prompts (wllama 3.8.1 in headless Chromium,
// one thread, temperature 0), as JSON: the reference the decoder's native test reads
// (tests/fixtures/smollm2-greedy.json). Skips with a message without the model
// (scripts/fetch-smollm2.sh).
//
//   node scripts/llama-reference.mjs > tests/fixtures/smollm2-greedy.json
import { basename } from 'node:path';
import { launchChromium } from '../tests/js/browser.mjs';
import { localFixtures, localMounts } from '../tests/js/local/fixtures.mjs';
import { startIsolatedServer } from '../tests/js/local/isolated-server.mjs';

const PROMPTS = [
  '<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n',
  '<|im_start|>system\nAnswer from the passages.<|im_end|>\n<|im_start|>user\nPassage: Gabriel Syme was a poet who became a detective. He met Lucian Gregory in Saffron Park in 1904.\n\nWho is Gabriel Syme?<|im_end|>\n<|im_start|>assistant\n',
];
const TOKENS = 32;

const fixtures = localFixtures();
if (fixtures.skip) {
  console.error(fixtures.skip);
  process.exit(0);
}
const server = await startIsolatedServer(localMounts(fixtures));
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  const answers = await page.evaluate(
    async (options) => (await import('/session.js')).greedyCompletions(options),
    { model: `/models/${basename(fixtures.model)}`, prompts: PROMPTS, tokens: TOKENS },
  );
  const cases = PROMPTS.map((prompt, i) => ({ prompt, text: answers[i].text, finish: answers[i].finish }));
  console.log(JSON.stringify({ model: basename(fixtures.model), runtime: 'wllama 3.8.1 (llama.cpp), 1 thread, temperature 0', tokens: TOKENS, cases }, null, 1));
} finally {
  await browser.close();
  await server.close();
}
