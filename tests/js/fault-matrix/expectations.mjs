// A row's expected outcome (see `rows.mjs` for the fields of `expect`), asserted.
import assert from 'node:assert/strict';
import { ERROR_NAMES } from './ledger.mjs';

/** JSON of a value, cut short for an assertion message. */
export const brief = (value) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

function checkSettled(observed, expected, index) {
  const { value, error } = observed;
  const where = `call ${index + 1}`;
  if (expected.error === undefined) {
    assert.equal(error, undefined, `${where} should succeed, it failed with ${brief(error)}`);
    assert.equal(value.status, expected.status, `${where}: status`);
    if (expected.text !== undefined) assert.equal(value.text, expected.text, `${where}: text`);
    return;
  }
  assert.ok(error, `${where} should fail, it resolved with ${brief(value)}`);
  if (expected.error === true) assert.ok(ERROR_NAMES.has(error.name), `${where}: ${error.name} is not a Lectern error`);
  else assert.equal(error.name, expected.error, `${where}: ${error.name}: ${error.message}`);
  for (const [field, want] of Object.entries(expected.fields ?? {})) {
    assert.deepEqual(error[field], want, `${where}: ${error.name}.${field} (${error.message})`);
  }
}

/** Asserts everything `expect` names against what the row observed. */
export function checkExpectations(expect, observed) {
  (expect.outcomes ?? []).forEach((want, i) => {
    assert.ok(observed.outcomes[i], `call ${i + 1} never settled`);
    checkSettled(observed.outcomes[i], want, i);
  });
  if (expect.requests !== undefined) assert.equal(observed.requests.length, expect.requests, 'model requests');
  for (const pattern of expect.modelRead ?? []) {
    assert.ok(observed.modelRead.some((text) => pattern.test(text)), `the model should read ${pattern}: ${brief(observed.modelRead)}`);
  }
  if (expect.runs) assert.deepEqual(observed.stored.runs, expect.runs, 'tool runs');
  expect.check?.(observed);
}
