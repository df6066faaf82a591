// What the local-model test and bench need, each found or fetched (into ~/.cache/lectern, never the
// repo) or else a `SKIPPED: …` reason: the SmolLM2 GGUF, the MiniLM files, wllama's package files
// and the Thursday book from ../shared.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(fileURLToPath(import.meta.url), '../../../..');

/** Runs a fetch script that prints `NAME=value` or `SKIPPED: …` last; the value or a skip reason. */
export function fetched(envName, script) {
  if (process.env[envName]) return { value: process.env[envName] };
  const run = spawnSync('bash', [join(root, 'scripts', script)], { encoding: 'utf8' });
  const last = (run.stdout ?? '').trim().split('\n').pop() ?? '';
  if (last.startsWith(`${envName}=`)) return { value: last.slice(envName.length + 1) };
  return { skip: last.startsWith('SKIPPED') ? last : `SKIPPED: ${script} failed (${run.stderr?.trim()})` };
}

/** `{ wllamaDir }`, wllama's browser files (index.js, wasm/), or `{ skip }` when it is not installed. */
export function wllamaFiles() {
  const wllamaDir = join(root, 'node_modules/@wllama/wllama/esm');
  if (!existsSync(join(wllamaDir, 'index.js')) || !existsSync(join(wllamaDir, 'wasm/wllama.wasm'))) {
    return { skip: 'SKIPPED: @wllama/wllama is not installed (npm ci)' };
  }
  return { wllamaDir };
}

/**
 * `{ model, minilmDir, wllamaDir, bookPath }` (absolute paths), or `{ skip }` with the reason.
 * `LECTERN_SMOLLM2` (a .gguf path), `LECTERN_MINILM_DIR` and `LECTERN_SHARED` override the defaults.
 */
export function localFixtures() {
  const { wllamaDir, skip } = wllamaFiles();
  if (skip) return { skip };
  if (!existsSync(join(root, 'pkg/lectern_wllama.js'))) {
    return { skip: 'SKIPPED: no pkg/ (bash scripts/build.sh)' };
  }
  const shared = process.env.LECTERN_SHARED ?? join(root, '../shared');
  const bookPath = join(shared, 'fixtures/books/chesterton-thursday.txt');
  if (!existsSync(bookPath)) return { skip: `SKIPPED: ${bookPath} not found (no ../shared fixtures)` };
  const model = fetched('LECTERN_SMOLLM2', 'fetch-smollm2.sh');
  if (model.skip) return { skip: model.skip };
  const minilm = fetched('LECTERN_MINILM_DIR', 'fetch-minilm.sh');
  if (minilm.skip) return { skip: minilm.skip };
  return { model: model.value, minilmDir: minilm.value, wllamaDir, bookPath };
}

/**
 * The base Gemma 3 270M (`LECTERN_GEMMA3`, else scripts/fetch-gemma3.sh), served at `/gemma/`:
 * `{ path, mount, url }` (`mount` to add to the server's mounts, `url` the page's), or `{ skip }`.
 */
export function gemmaFixture() {
  const { value, skip } = fetched('LECTERN_GEMMA3', 'fetch-gemma3.sh');
  if (skip) return { skip };
  return { path: value, mount: { '/gemma/': dirname(value) }, url: `/gemma/${basename(value)}` };
}

/** The mounts of the isolated server for these fixtures. */
export function localMounts({ model, minilmDir, wllamaDir, bookPath }) {
  return {
    '/': join(root, 'tests/js/local/page'),
    '/pkg/': join(root, 'pkg'),
    '/wllama/': wllamaDir,
    '/models/': dirname(model),
    '/minilm/': minilmDir,
    '/books/': dirname(bookPath),
  };
}
