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
