// Where the machine's CPU time goes while Lectern's decoder reads the 378-token chat prompt of
// benches/local_prompts.mjs on `threads` threads in Chromium: every thread of every process is
// read from /proc before and after the read (a warm one: the same decoder read the prompt once
// before), and those that ran are printed with their CPU time, the time they waited runnable for a
// CPU (schedstat's run delay) and their voluntary and involuntary switches, beside the decoder's
// own stage clock. Linux only; asserts nothing; run by hand:
//
//   node benches/local_threads_probe.mjs [smollm2|gemma3] [threads]     (ROUNDS=3, TOKENS=1)
//
// TOKENS=33 also generates 32 tokens after the read (the threads' figures then cover both).
import { readdirSync, readFileSync } from 'node:fs';
import { launchChromium } from '../tests/js/browser.mjs';
import { localMounts } from '../tests/js/local/fixtures.mjs';
import { startIsolatedServer } from '../tests/js/local/isolated-server.mjs';
import { probeModel } from './local_probe_model.mjs';
import { LONG_CHAT_PROMPT } from './local_prompts.mjs';

const [which = 'smollm2', threads = '2'] = process.argv.slice(2);
const { fixtures, gemma, model } = probeModel(which);

/** A file's text, or '' when the thread has gone. */
function read(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Every thread now: `pid/tid` -> { name, process, cpuMs, waitMs, voluntary, involuntary }. */
function threadsNow() {
  const tick = 10; // USER_HZ 100: one clock tick is 10 ms
  const all = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const process = read(`/proc/${pid}/comm`).trim();
    let tids = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const base = `/proc/${pid}/task/${tid}`;
      const stat = read(`${base}/stat`);
      if (!stat) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const [runNs, waitNs] = read(`${base}/schedstat`).split(' ').map(Number);
      const status = read(`${base}/status`);
      const count = (key) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? 0);
      all.set(`${pid}/${tid}`, {
        name: read(`${base}/comm`).trim(),
        process,
        cpuMs: Number.isFinite(runNs) ? runNs / 1e6 : (Number(fields[11]) + Number(fields[12])) * tick,
        waitMs: Number.isFinite(waitNs) ? waitNs / 1e6 : 0,
        voluntary: count('voluntary_ctxt_switches'),
        involuntary: count('nonvoluntary_ctxt_switches'),
      });
    }
  }
  return all;
}

/** The threads that ran between `before` and `after`, busiest first. */
function ran(before, after) {
  const rows = [];
  for (const [key, now] of after) {
    const then = before.get(key) ?? { cpuMs: 0, waitMs: 0, voluntary: 0, involuntary: 0 };
    const cpuMs = now.cpuMs - then.cpuMs;
    if (cpuMs < 1) continue;
    rows.push({
      key,
      name: `${now.process}: ${now.name}`,
      cpuMs,
      waitMs: now.waitMs - then.waitMs,
      voluntary: now.voluntary - then.voluntary,
      involuntary: now.involuntary - then.involuntary,
    });
  }
  return rows.sort((a, b) => b.cpuMs - a.cpuMs);
}

const server = await startIsolatedServer({ ...localMounts(fixtures), ...gemma.mount });
const browser = await launchChromium();

try {
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.evaluate(
    async ({ model, threads }) => {
      const { LocalModel } = await import('/pkg/lectern_local_provider.js');
      window.probeModel = new LocalModel(model, { cacheName: null, threads });
      await window.probeModel.ready;
    },
    { model, threads: Number(threads) },
  );
  for (let round = 0; round <= Number(process.env.ROUNDS ?? 3); round++) {
    const before = threadsNow();
    const started = performance.now();
    const run = await page.evaluate(
      async ({ prompt, round, tokens }) => {
        const out = {};
        const asked = prompt.replace('Read this.', `Read this, part ${round}.`);
        for await (const m of window.probeModel.generate(asked, { maxTokens: tokens, profile: true })) {
          if (m.type === 'read') Object.assign(out, { tokens: m.promptTokens - m.cachedTokens, ms: m.ms, stages: m.stages, share: m.helperShare });
          if (m.type === 'done') Object.assign(out, { generated: m.completionTokens, generateMs: m.ms, generateStages: m.stages, generateShare: m.helperShare });
        }
        return out;
      },
      { prompt: LONG_CHAT_PROMPT, round, tokens: Number(process.env.TOKENS ?? 1) },
    );
    const wallMs = performance.now() - started;
    const rows = ran(before, threadsNow());
    if (round === 0) continue; // the first read warms the code
    const total = rows.reduce((sum, r) => sum + r.cpuMs, 0);
    const stages = Object.entries(run.stages ?? {}).map(([s, ms]) => `${s} ${ms.toFixed(0)}`).join(', ');
    console.log(`\n${which}, ${threads} thread(s), round ${round}: read ${run.tokens} tokens in ${run.ms.toFixed(0)} ms (${((run.tokens * 1000) / run.ms).toFixed(1)} tokens/s); the helpers ran ${run.share == null ? "no shared parts" : `${(run.share * 100).toFixed(0)} % of the shared parts`}`);
    console.log(`  stages (ms): ${stages}`);
    if (run.generated > 1) {
      const perToken = Object.entries(run.generateStages ?? {}).map(([s, ms]) => `${s} ${(ms / run.generated).toFixed(2)}`).join(', ');
      console.log(`  then generated ${run.generated} tokens at ${((run.generated * 1000) / run.generateMs).toFixed(1)} tokens/s (ms a token: ${perToken}); the helpers ran ${run.generateShare == null ? 'no shared parts' : `${(run.generateShare * 100).toFixed(0)} %`}`);
    }
    console.log(`  the machine, over ${wallMs.toFixed(0)} ms of wall time on 2 CPUs: ${total.toFixed(0)} ms of CPU time ran`);
    for (const r of rows.slice(0, 10)) {
      console.log(`  ${r.cpuMs.toFixed(0).padStart(6)} ms on CPU, ${r.waitMs.toFixed(0).padStart(5)} ms runnable waiting, switches ${r.voluntary} voluntary ${r.involuntary} forced  ${r.name} (${r.key})`);
    }
  }
  await page.evaluate(() => window.probeModel.close());
} finally {
  await browser.close();
  server.close();
}
