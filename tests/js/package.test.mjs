// The shipped package (pkg/, built by scripts/build.sh without the crate's
// test-support feature) holds no test-only entry points, and its types know
// what a page needs to handle a panic and to cap tool results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (name) => readFileSync(new URL(`../../pkg/${name}`, import.meta.url), 'utf8');

test('the package has no test-only entry points', () => {
  for (const file of ['lectern.js', 'lectern.d.ts', 'lectern_bg.wasm.d.ts']) {
    assert.doesNotMatch(read(file), /panicForTest|panic_for_test/, file);
  }
});

test('the types name InternalError and maxToolResultChars', () => {
  const types = read('lectern.d.ts');
  assert.match(types, /'InternalError'/);
  assert.match(types, /panic\?: string;/);
  assert.match(types, /maxToolResultChars\?: number;/);
});

test('the worker file ships, and the URL the page side starts it from finds it', async () => {
  const { readdirSync, existsSync } = await import('node:fs');
  const pkg = new URL('../../pkg/', import.meta.url);
  const hosts = readdirSync(new URL('snippets/', pkg), { recursive: true })
    .filter((p) => p.endsWith('worker_host.js'))
    .map((p) => new URL(`snippets/${p}`, pkg));
  assert.equal(hosts.length, 1, 'one worker_host.js among the snippets');
  const source = readFileSync(hosts[0], 'utf8');
  const literal = source.match(/new Worker\(new URL\('([^']+)', import\.meta\.url\)/);
  assert.ok(literal, 'the bundler-visible pattern new Worker(new URL(literal, import.meta.url))');
  const target = new URL(literal[1], hosts[0]);
  assert.equal(target.href, new URL('lectern_worker.js', pkg).href);
  assert.ok(existsSync(target), 'pkg/lectern_worker.js exists');
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.ok(manifest.files.includes('pkg/lectern_worker.js'));
  assert.match(read('lectern_worker.js'), /from '\.\/lectern\.js'/);
});
