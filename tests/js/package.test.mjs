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

test('scripts/sizes.mjs measures every shipped file, and the module stays in its budget', async () => {
  const { packageSizes, markdownTable } = await import('../../scripts/sizes.mjs');
  const sizes = packageSizes();
  const files = sizes.rows.map((row) => row.file);
  for (const file of ['pkg/lectern.js', 'pkg/lectern.d.ts', 'pkg/lectern_bg.wasm', 'pkg/lectern_bg.wasm.d.ts']) {
    assert.ok(files.includes(file), file);
  }
  assert.ok(files.some((file) => file.startsWith('pkg/snippets/')), 'the snippets are measured');
  for (const row of sizes.rows) {
    assert.equal(row.raw, readFileSync(new URL(`../../${row.file}`, import.meta.url)).length, row.file);
    assert.ok(row.gzip > 0 && row.brotli > 0, row.file);
  }
  assert.equal(sizes.total.raw, sizes.rows.reduce((sum, row) => sum + row.raw, 0));
  assert.match(markdownTable(sizes), /\| `pkg\/lectern_bg\.wasm` \| [\d,]+ \| [\d,]+ \| [\d,]+ \|/);
  // Every shipped file within its budget (bench/size-budget.json), which rises only with a reason.
  const { overBudget, unexplainedRises } = await import('../../scripts/size-budget.mjs');
  assert.deepEqual(overBudget(sizes), []);
  assert.deepEqual(unexplainedRises(), []);
});

test('a size budget rises only with a new reason; lowering one needs none', async () => {
  const { risesWithoutReason } = await import('../../scripts/size-budget.mjs');
  const before = { 'a.wasm': { gzip: 100, reason: 'first' }, 'b.js': { gzip: 10 } };
  assert.deepEqual(risesWithoutReason(before, { 'a.wasm': { gzip: 90 }, 'b.js': { gzip: 9 } }), []);
  assert.deepEqual(risesWithoutReason(before, { 'a.wasm': { gzip: 101, reason: 'first' }, 'b.js': { gzip: 11 } }), ['a.wasm', 'b.js']);
  assert.deepEqual(risesWithoutReason(before, { 'a.wasm': { gzip: 120, reason: 'sources on answers' }, 'b.js': { gzip: 10 } }), []);
});

test("two modules: the page's has the Lectern class and no books, the books module LecternBooks and the worker's entries", () => {
  const page = read('lectern.js');
  const books = read('lectern_books.js');
  assert.match(page, /export class Lectern\b/);
  assert.doesNotMatch(page, /class LecternBooks\b|__lecternIngest|__lecternBuildIndex/, 'no books code in the page module');
  assert.match(books, /export class LecternBooks\b/);
  assert.match(books, /export function __lecternIngest\b/);
  assert.match(books, /export function __lecternBuildIndex\b/);
  assert.doesNotMatch(books, /class Lectern\b/);
  const wasm = (name) => new WebAssembly.Module(readFileSync(new URL(`../../pkg/${name}`, import.meta.url)));
  const exports = (name) => WebAssembly.Module.exports(wasm(name)).map((e) => e.name);
  assert.ok(!exports('lectern_bg.wasm').some((name) => /lecternIngest|lecternBuildIndex|^lecternbooks_/.test(name)));
  assert.ok(!exports('lectern_books_bg.wasm').some((name) => name.startsWith('lectern_')), 'no Lectern methods');
});

test('the worker file and the books module ship, and the URLs they are loaded from find them', async () => {
  const { readdirSync, existsSync } = await import('node:fs');
  const pkg = new URL('../../pkg/', import.meta.url);
  const snippets = readdirSync(new URL('snippets/', pkg), { recursive: true });
  const snippet = (name) => snippets.filter((p) => p.endsWith(name)).map((p) => new URL(`snippets/${p}`, pkg));
  const hosts = snippet('worker_host.js');
  assert.equal(hosts.length, 1, 'one worker_host.js among the snippets');
  const source = readFileSync(hosts[0], 'utf8');
  const literal = source.match(/new Worker\(new URL\('([^']+)', import\.meta\.url\), \{ type: 'module'[^}]*\}\)/);
  // Vite reads the worker's options too, and refuses a build whose options are not a literal.
  assert.ok(literal, "the bundler-visible pattern new Worker(new URL(literal, import.meta.url), { type: 'module', … })");
  const target = new URL(literal[1], hosts[0]);
  assert.equal(target.href, new URL('lectern_worker.js', pkg).href);
  assert.ok(existsSync(target), 'pkg/lectern_worker.js exists');
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.ok(manifest.files.includes('pkg/lectern_worker.js'));
  assert.match(read('lectern_worker.js'), /from '\.\/lectern_books\.js'/);
  // The page's module imports the books module on first use, with a literal bundlers follow.
  const [booksHost] = snippet('books_host.js');
  assert.ok(booksHost, 'books_host.js among the snippets');
  const dynamic = readFileSync(booksHost, 'utf8').match(/import\('([^']+)'\)/);
  assert.ok(dynamic, "the bundler-visible pattern import('literal')");
  assert.equal(new URL(dynamic[1], booksHost).href, new URL('lectern_books.js', pkg).href);
  for (const file of ['pkg/lectern_books.js', 'pkg/lectern_books_bg.wasm']) {
    assert.ok(manifest.files.includes(file), file);
    assert.ok(existsSync(new URL(`../../${file}`, import.meta.url)), file);
  }
  // And lectern/sync's follower when opened with `sync`, the same way.
  const [syncHost] = snippet('sync_host.js');
  assert.ok(syncHost, 'sync_host.js among the snippets');
  const follow = readFileSync(syncHost, 'utf8').match(/import\('([^']+)'\)/);
  assert.ok(follow, "the bundler-visible pattern import('literal')");
  assert.equal(new URL(follow[1], syncHost).href, new URL('lectern_sync_follow.js', pkg).href);
  for (const file of ['pkg/lectern_sync_follow.js', 'pkg/lectern_sync_client.js', 'pkg/lectern_sync.js', 'pkg/lectern_sync_bg.wasm']) {
    assert.ok(manifest.files.includes(file), file);
    assert.ok(existsSync(new URL(`../../${file}`, import.meta.url)), file);
  }
});
