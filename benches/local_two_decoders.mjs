// Issue 49's two-thread question: do two wasm Workers computing at the same time slow each other
// in Chromium on this machine? Two one-thread decoders (lectern/local, the plain build: separate
// Workers, separate memories, no pool) read the 382-token prompt of benches/local_decoder.mjs and
// generate 32 tokens, first one alone, then both at once, `PAIRS` times interleaved, so that each
// "together" row sits between "alone" rows of the same minutes. Prints tokens/s; asserts nothing.
//
//   node benches/local_two_decoders.mjs        (PAIRS=4 by default; SKIPPED offline like the tests)
import { basename } from 'node:path';
import { launchChromium } from '../tests/js/browser.mjs';
import { localFixtures, localMounts } from '../tests/js/local/fixtures.mjs';
import { startIsolatedServer } from '../tests/js/local/isolated-server.mjs';
import { LONG_CHAT_PROMPT as LONG } from './local_prompts.mjs';

const fixtures = localFixtures();
if (fixtures.skip) {
  console.log(fixtures.skip);
  process.exit(0);
}
const server = await startIsolatedServer(localMounts(fixtures));
const browser = await launchChromium();
const model = `/models/${basename(fixtures.model)}`;

/** In the page: two one-thread decoders, each prompt made new (`part k`) so no prefix is cached. */
async function alternate({ model, prompt, pairs }) {
  const { LocalModel } = await import('/pkg/lectern_local_provider.js');
  const [a, b] = [0, 1].map(() => new LocalModel(model, { cacheName: null, threads: 1 }));
  await Promise.all([a.ready, b.ready]);
  let k = 0;
  const once = async (local) => {
    const run = {};
    k += 1;
    for await (const m of local.generate(prompt.replace('Read this.', `Read this, part ${k}.`), { maxTokens: 32 })) {
      if (m.type === 'read') run.read = ((m.promptTokens - m.cachedTokens) * 1000) / m.ms;
      if (m.type === 'done') run.gen = (m.completionTokens * 1000) / m.ms;
    }
    return run;
  };
  await Promise.all([once(a), once(b)]); // both Workers' code warmed up
  const rows = [];
  for (let i = 0; i < pairs; i++) {
    rows.push({ mode: 'alone', runs: [await once(a)] });
    rows.push({ mode: 'together', runs: await Promise.all([once(a), once(b)]) });
  }
  a.close();
  b.close();
  return rows;
}

try {
  const page = await browser.newPage();
  await page.goto(server.url);
  const rows = await page.evaluate(alternate, { model, prompt: LONG, pairs: Number(process.env.PAIRS ?? 4) });
  for (const { mode, runs } of rows) {
    console.log(`${mode.padEnd(8)} ${runs.map((r) => `read ${r.read.toFixed(1)} tokens/s, generate ${r.gen.toFixed(1)} tokens/s`).join(' | ')}`);
  }
} finally {
  await browser.close();
  server.close();
}
