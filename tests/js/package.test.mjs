// The shipped package (pkg/, built by scripts/build.sh without the crate's
// test-support feature) holds no test-only entry points, and its types know
// what a page needs to handle a panic and to cap tool results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** Bytes of gzip -9 (node's zlib) the release module may weigh. */
const WASM_GZIP_BUDGET = 535_000;

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
});
