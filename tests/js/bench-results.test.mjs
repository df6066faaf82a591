// scripts/bench-results.mjs: how a run's tables meet the ones carried from an earlier run, and the
// blocks it writes into docs/figures.md and the README.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HEADLINE, headlineTable, mergeSections, replaceBetween, tables, withRatios } from '../../scripts/bench-results.mjs';

const header = ['| file | raw |', '| --- | ---: |'];

test('a table measured whole replaces the carried one: a file no longer shipped drops out', () => {
  const carried = { package_sizes: [...header, '| `pkg/a.wasm` | 1 |', '| `pkg/chunk_4.wasm` | 2 |'] };
  const measured = { package_sizes: [...header, '| `pkg/a.wasm` | 3 |'] };
  assert.deepEqual(mergeSections(carried, measured).package_sizes, [...header, '| `pkg/a.wasm` | 3 |']);
});

test('a table measured in parts keeps the carried rows this run did not measure', () => {
  const carried = { reader_answers: [...header, '| local | 1 |', '| demo | 2 |'] };
  const measured = { reader_answers: [...header, '| local | 5 |'] };
  assert.deepEqual(mergeSections(carried, measured).reader_answers, [...header, '| local | 5 |', '| demo | 2 |']);
});

test("the README's headline figures are rows of docs/figures.md's tables, the same cells", () => {
  const all = { wasm_gzip: { chromium: 295.4 }, exact_p50_53901: { native: 3.37, chromium: 2.98 }, local_decoder_gen_tps: { chromium: 31.2 } };
  const full = tables(all).split('\n');
  const cells = (row) => row.split(' | ').slice(1).join(' | ');
  const headline = headlineTable(all).split('\n').slice(2);
  assert.equal(headline.length, HEADLINE.length);
  for (const row of headline) {
    assert.ok(full.some((line) => line.startsWith('| ') && cells(line) === cells(row)), row);
  }
  assert.match(headlineTable(all), /\| 295 KB \| ≤ 300 KB \| met \|/);
});

test('a figures block is replaced between its markers, and a missing marker is an error', () => {
  const text = 'a\n<!-- x:begin -->\nold\n<!-- x:end -->\nb\n';
  assert.equal(replaceBetween(text, '<!-- x:begin -->', '<!-- x:end -->', 'new'), 'a\n<!-- x:begin -->\nnew\n<!-- x:end -->\nb\n');
  assert.throws(() => replaceBetween('a\n', '<!-- x:begin -->', '<!-- x:end -->', 'new'), /no <!-- x:begin -->/);
});

test("a ratio to llama.cpp comes from figures of the same run: both now, both carried, or none", () => {
  const id = 'ratio_local_decoder_long_prompt_tps';
  const carried = { [id]: { chromium: 0.4 }, local_decoder_long_prompt_tps: { chromium: 40 }, native_llama_long_prompt_tps: { native: 100 } };
  const fresh = { local_decoder_long_prompt_tps: { chromium: 60 }, native_llama_long_prompt_tps: { native: 120 } };
  assert.deepEqual(withRatios({ ...carried, ...fresh }, fresh)[id], { chromium: 0.5 });
  assert.deepEqual(withRatios(carried, {})[id], { chromium: 0.4 }, 'neither measured now: the old ratio stays');
  const half = { local_decoder_long_prompt_tps: { chromium: 60 } };
  assert.equal(withRatios({ ...carried, ...half }, half)[id], undefined, 'one measured now: no ratio across runs');
});
