// The shipped package (pkg/, built by scripts/build.sh without the crate's
// test-support feature) holds no test-only entry points, and its types know
// what a page needs to handle a panic and to cap tool results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** Bytes of gzip -9 (node's zlib) the page's module may weigh: a guard against
 * regressions, about 1 % over the last measured 497,636, not the goal (300 KB).
 * Issue 12 ended at 421,368; issue 13 added the worker-side MiniLM embedder
 * (+2.9 KB), lexical search and hybrid fusion (+7.7 KB), exportBook /
 * importBook (+4.4 KB), local providers, maxContextTokens and estimated usage
 * (+6.5 KB), ending at 442,919; issue 14 added subscribe and retry (+2.4 KB)
 * and page() with the pages stored beside the passages, in IndexedDB and in
 * bundles (+6.6 KB), ending at 450,796; issue 15's reasoning (thinking
 * decoded, stored and sent back, reasoningDelta, thinking, replayReasoning and
 * maxTokensParam settings) +6.2 KB; the rest of issue 15 (token estimate,
 * maxOutputTokens and contextLength, budgets and usage totals, approval grants,
 * onNewMessage, setApprovals, current_datetime, tool retries,
 * deleteAllConversations, reviewRun) +34.3 KB, ending at 491,312; structured
 * output (responseSchema on both wire formats, Anthropic's response tool
 * decoded to text, the answer checked and corrected once) +6.3 KB, ending at
 * 497,636; exportConversation / importConversation (the import's checks, the
 * OpenAI mapping, one IndexedDB transaction) +18.1 KB on its own branch;
 * with the summarize strategy, the egress ledger, recordEvents/replay and the
 * calibration (about +40 KB together) the merge measured 555,808; events
 * recorded through the JSON text (one serializer) 554,669; interruptedTurns /
 * resumeTurn (the open-turn record, its IndexedDB store, Web Locks
 * ifAvailable, the resume path) about +12 KB; issue 31's trusted answers
 * (the reader context: the reader's pages, names' first passages and found
 * passages cut around the question's words within a token budget; sources on
 * the result, the finish event and the stored answer; the answer's check
 * against them) +18.6 KB, measured 590,712 — the weight issue 28 must cut;
 * books that open at once (their vectors computed from the page's side after
 * addBook: the embedding loop, its pace, BookStore::put_vectors, the
 * completion and its ingestFailed event) +7.0 KB, measured 597,703. */
const WASM_GZIP_BUDGET = 604_000;
/** The same for the ingestion module (last measured 247,938: 196,160 before
 * issue 13 added all-MiniLM-L6-v2's tokenizer, its tables and the encoder). */
const INGEST_GZIP_BUDGET = 254_000;

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
  // A regression guard, not the goal (issue 12 asks for 300 KB gzip; see the
  // README's figures): the last measured size plus about 3 %.
  const wasm = sizes.rows.find((row) => row.file === 'pkg/lectern_bg.wasm');
  assert.ok(wasm.gzip <= WASM_GZIP_BUDGET, `lectern_bg.wasm is ${wasm.gzip} bytes gzip, over ${WASM_GZIP_BUDGET}`);
  const ingest = sizes.rows.find((row) => row.file === 'pkg/lectern_ingest_bg.wasm');
  assert.ok(ingest.gzip <= INGEST_GZIP_BUDGET, `lectern_ingest_bg.wasm is ${ingest.gzip} bytes gzip`);
});

test("two modules: the page's has the Lectern class and no ingestion, the ingestion module nothing else", () => {
  const page = read('lectern.js');
  const ingest = read('lectern_ingest.js');
  assert.match(page, /export class Lectern\b/);
  assert.doesNotMatch(page, /__lecternIngest|__lecternBuildIndex/, 'no ingestion entries in the page module');
  assert.match(ingest, /export function __lecternIngest\b/);
  assert.match(ingest, /export function __lecternBuildIndex\b/);
  assert.doesNotMatch(ingest, /class Lectern\b/);
  const wasm = (name) => new WebAssembly.Module(readFileSync(new URL(`../../pkg/${name}`, import.meta.url)));
  const exports = (name) => WebAssembly.Module.exports(wasm(name)).map((e) => e.name);
  assert.ok(!exports('lectern_bg.wasm').some((name) => /lecternIngest|lecternBuildIndex/.test(name)));
  assert.ok(!exports('lectern_ingest_bg.wasm').some((name) => name.startsWith('lectern_')), 'no Lectern methods');
});

test('the worker file and the ingestion module ship, and the URLs the page side loads them from find them', async () => {
  const { readdirSync, existsSync } = await import('node:fs');
  const pkg = new URL('../../pkg/', import.meta.url);
  const hosts = readdirSync(new URL('snippets/', pkg), { recursive: true })
    .filter((p) => p.endsWith('worker_host.js'))
    .map((p) => new URL(`snippets/${p}`, pkg));
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
  assert.match(read('lectern_worker.js'), /from '\.\/lectern_ingest\.js'/);
  // Without a worker the page imports the ingestion module with a literal bundlers follow.
  const dynamic = source.match(/import\('([^']+)'\)/);
  assert.ok(dynamic, "the bundler-visible pattern import('literal')");
  assert.equal(new URL(dynamic[1], hosts[0]).href, new URL('lectern_ingest.js', pkg).href);
  for (const file of ['pkg/lectern_ingest.js', 'pkg/lectern_ingest_bg.wasm']) {
    assert.ok(manifest.files.includes(file), file);
    assert.ok(existsSync(new URL(`../../${file}`, import.meta.url)), file);
  }
});
