// A change to the local decoder measured against the build before it, in the same page and the same
// minutes: `pkg/` (after) and another package directory (before) read the 378-token chat prompt of
// benches/local_prompts.mjs and generate 32 tokens in turn, `ROUNDS` times, each run's stages
// printed (the decoder's own clock), so that a kernel's gain shows beside the stages it did not
// touch (this machine's speed varies by a third between minutes). Asserts nothing; run by hand.
//
//   cp -r pkg /tmp/pkg-before; <change, scripts/build.sh>
//   node benches/local_pkg_ab.mjs /tmp/pkg-before [smollm2|gemma3] [threads]   (ROUNDS=4)
//   PROMPT=short: a ~60-token prompt instead (as benches/local_decoder.mjs's Gemma prompt), where a
//   prompt's fixed costs show.
import { launchChromium } from '../tests/js/browser.mjs';
import { localMounts } from '../tests/js/local/fixtures.mjs';
import { startIsolatedServer } from '../tests/js/local/isolated-server.mjs';
import { probeModel } from './local_probe_model.mjs';
import { LONG_CHAT_PROMPT, SHORT_PROSE_PROMPT } from './local_prompts.mjs';

const [before, which = 'smollm2', threads = '1'] = process.argv.slice(2);
if (!before) {
  console.log('usage: node benches/local_pkg_ab.mjs <package directory before> [smollm2|gemma3] [threads]');
  process.exit(2);
}
const { fixtures, gemma, model } = probeModel(which);
const server = await startIsolatedServer({ ...localMounts(fixtures), ...gemma.mount, '/before/': before });
const browser = await launchChromium();

/** In the page: one decoder from `dir` answers the prompt twice (the second timed, its code warm). */
async function answerTwice({ dir, model, prompt, threads }) {
  const { LocalModel } = await import(`/${dir}/lectern_local_provider.js`);
  const local = new LocalModel(model, { cacheName: null, threads });
  await local.ready;
  let run;
  for (const part of [1, 2]) {
    run = {};
    const asked = prompt.replace('Read this', `Read this, part ${part}`);
    for await (const m of local.generate(asked, { maxTokens: 32, profile: true })) {
      if (m.type === 'read') Object.assign(run, { tokens: m.promptTokens - m.cachedTokens, ms: m.ms, stages: m.stages });
      if (m.type === 'done') Object.assign(run, { generated: m.completionTokens, generateMs: m.ms, generateStages: m.stages });
    }
  }
  local.close();
  return run;
}

try {
  const page = await browser.newPage();
  await page.goto(server.url);
  for (let round = 0; round < Number(process.env.ROUNDS ?? 4); round++) {
    for (const dir of ['before', 'pkg']) {
      const prompt = process.env.PROMPT === 'short' ? SHORT_PROSE_PROMPT : LONG_CHAT_PROMPT;
      const run = await page.evaluate(answerTwice, { dir, model, prompt, threads: Number(threads) });
      const stages = (times, per = 1) => Object.entries(times).map(([stage, ms]) => `${stage} ${(ms / per).toFixed(per > 1 ? 2 : 0)}`).join(', ');
      const rate = (n, ms) => ((n * 1000) / ms).toFixed(1);
      console.log(`${dir.padEnd(6)} ${which}, ${threads} thread(s): reads ${run.tokens} tokens at ${rate(run.tokens, run.ms)} tokens/s (ms: ${stages(run.stages)})`);
      console.log(`${dir.padEnd(6)} ${which}, ${threads} thread(s): generates ${run.generated} at ${rate(run.generated, run.generateMs)} tokens/s (ms a token: ${stages(run.generateStages, run.generated)})`);
    }
  }
} finally {
  await browser.close();
  server.close();
}
