// scripts/bench-results.mjs: how a run's tables meet the ones carried from an earlier run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSections } from '../../scripts/bench-results.mjs';

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
