// The fault matrix (issue 10, "Nothing lost, nothing run twice"): the built
// package in headless Chromium, driven through its public JS API against the
// mock model server through every fault in `fault-matrix/rows.mjs`. Each row
// uses a fresh database and mock session, then keeps a ledger from what a
// reopened database holds and what the tools counted: every user message
// stored once, no assistant message duplicated, no tool run twice, every
// failure a typed error. The matrix is printed and written to
// .test-artifacts/fault-matrix.md (docs/testing.md's "Fault matrix" is a copy).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { startMockServer } from '../mock-server/server.mjs';
import { ARTIFACTS, ENGINE, launchChromium } from './browser.mjs';
import { startPageServer } from './fault-matrix/page-server.mjs';
import { RowRun } from './fault-matrix/row-run.mjs';
import { ROWS } from './fault-matrix/rows.mjs';
import { sendOnce } from './fault-matrix/drivers.mjs';
import { observe, outcomeText } from './fault-matrix/observe.mjs';
import { checkExpectations } from './fault-matrix/expectations.mjs';
import { ledger, ledgerProblems } from './fault-matrix/ledger.mjs';
import { markdownTable } from './fault-matrix/table.mjs';

let mock;
let pages;
let browser;
let context;
const matrix = [];

before(async () => {
  mock = await startMockServer();
  pages = await startPageServer();
  browser = await launchChromium();
  context = await browser.newContext(); // one origin's storage for every tab
});

after(async () => {
  const table = markdownTable(matrix);
  await mkdir(ARTIFACTS, { recursive: true });
  await writeFile(`${ARTIFACTS}/fault-matrix.md`, table);
  process.stdout.write(`\nFault matrix (fault → outcome → ledger):\n\n${table}\n`);
  await browser?.close();
  await pages?.close();
  await mock?.close();
});

test('the ledger catches a user message stored twice, a duplicated answer, a tool run twice and an untyped error', () => {
  const user = { role: 'user', content: 'hi' };
  const answer = { role: 'assistant', content: 'hello', toolCalls: [] };
  const clean = { userTexts: ['hi'], messages: [user, answer], toolCalls: [{ id: 'c1' }], runs: { 'probe:c1': 1 }, errors: [{ name: 'ApiError' }] };
  assert.deepEqual(ledgerProblems(ledger(clean)), []);
  const broken = ledger({
    userTexts: ['hi'],
    messages: [user, user, answer, answer],
    toolCalls: [{ id: 'c1' }, { id: 'c1' }],
    runs: { 'probe:c1': 2 },
    errors: [{ name: 'TypeError' }],
  });
  assert.deepEqual(ledgerProblems(broken).map((p) => p.split(':')[0]), [
    'user messages not stored exactly once',
    'assistant messages duplicated',
    'tools ran twice',
    'untyped errors',
  ]);
  assert.deepEqual(broken.ranTwice, ['probe:c1 ran 2×', 'c1 recorded 2×']);
  // The same answer in two different turns is no duplicate.
  assert.deepEqual(ledger({ ...clean, userTexts: ['hi', 'again'], messages: [user, answer, { role: 'user', content: 'again' }, answer] }).duplicatedAnswers, []);
});

for (const row of ROWS) {
  const skip = row.chromiumOnly && ENGINE !== 'chromium' ? `SKIPPED in ${ENGINE}: ${row.chromiumOnly}` : false;
  test(`fault matrix: ${row.fault}`, { timeout: 30000, skip }, async () => {
    const run = new RowRun({ context, mockUrl: mock.url, pageUrl: pages.url, name: row.fault });
    const entry = { fault: row.fault, outcome: 'did not finish' };
    matrix.push(entry);
    try {
      const observed = await observe(run, row, row.drive ?? sendOnce);
      const errors = observed.outcomes.filter((o) => o.error).map((o) => o.error);
      entry.ledger = ledger({ ...observed.stored, userTexts: observed.userTexts, errors });
      entry.outcome = outcomeText(observed, row.expect.note);
      assert.deepEqual(ledgerProblems(entry.ledger), [], 'the ledger');
      checkExpectations(row.expect, observed);
    } catch (error) {
      if (!entry.ledger) entry.outcome = `did not finish: ${error.message.split('\n')[0]}`;
      throw error;
    } finally {
      await run.close();
    }
  });
}
