// A real llama.cpp `llama-server` on 127.0.0.1 serving SmolLM2-135M-Instruct, for tests/real/ and
// benches/native_llama.mjs: the binary from scripts/fetch-llama-server.sh and the GGUF from
// scripts/fetch-smollm2.sh (both cached outside the repo; `LECTERN_LLAMA_SERVER` and
// `LECTERN_SMOLLM2` override them), on a free port, with its log kept for the tests to read.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fetched } from '../js/local/fixtures.mjs';

/**
 * The chat template the server applies (`--jinja`): Qwen2.5's, which renders `tools` into the
 * prompt and whose `<tool_call>` form llama.cpp parses back. SmolLM2's own template drops tools.
 */
export const TEMPLATE = 'Qwen-Qwen2.5-7B-Instruct.jinja';

/** `{ binary, model, templates }`, or `{ skip }` with the `SKIPPED: …` reason. Fetches or builds once. */
export function llamaFixtures() {
  const server = fetched('LECTERN_LLAMA_SERVER', 'fetch-llama-server.sh');
  if (server.skip) return { skip: server.skip };
  if (!existsSync(server.value)) return { skip: `SKIPPED: no llama-server at ${server.value}` };
  const model = fetched('LECTERN_SMOLLM2', 'fetch-smollm2.sh');
  if (model.skip) return { skip: model.skip };
  const templates = process.env.LECTERN_LLAMA_TEMPLATES ?? join(dirname(server.value), 'templates');
  if (!existsSync(join(templates, TEMPLATE))) return { skip: `SKIPPED: no ${TEMPLATE} in ${templates}` };
  return { binary: server.value, model: model.value, templates };
}

/** A port nobody listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts llama-server with the fixtures (`llamaFixtures()`), `threads` threads (default one: on
 * a machine busy with other work two threads wait for each other at every token, ten times
 * slower than one) and `args` more;
 * resolves once `/health` answers 200 with `{ url, baseUrl, log(), logSince(mark), close() }`:
 * `url` the server's root, `baseUrl` its `/v1`, `log()` everything it printed so far.
 */
export async function startLlamaServer(fixtures, { threads = 1, args = [] } = {}) {
  const port = await freePort();
  const child = spawn(
    fixtures.binary,
    [
      '-m', fixtures.model,
      '--host', '127.0.0.1',
      '--port', String(port),
      '--alias', 'smollm2',
      '--jinja',
      '--chat-template-file', join(fixtures.templates, TEMPLATE),
      '-c', '4096',
      '-np', '1',
      '-t', String(threads),
      '-tb', String(threads),
      '--slots',
      '--metrics',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60000;
  for (;;) {
    const health = await fetch(`${url}/health`).then((r) => r.status, () => 0);
    if (health === 200) break;
    const gone = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 200))]);
    if (gone !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`llama-server did not start (${gone ?? 'no /health within 60 s'}):\n${log.slice(-3000)}`);
    }
  }
  return {
    url,
    baseUrl: `${url}/v1`,
    log: () => log,
    async close() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}
