// The size budget of every shipped file (bench/size-budget.json): the most
// gzip -9 bytes each may have. A budget may only rise in a commit that gives
// that file a new `reason`; lowering one needs none.
// `node scripts/size-budget.mjs` prints each file against its budget.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { packageSizes } from './sizes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const BUDGET_FILE = 'bench/size-budget.json';

/** A shipped path as the budget names it: wasm-bindgen's snippet folder hash and the number
 * wasm-split-cli gives a chunk of shared code left out (each shared chunk has the one budget). */
export const budgetKey = (file) =>
  file
    .replace(/snippets\/lectern-[0-9a-f]+\//, 'snippets/lectern-*/')
    .replace(/\/chunk_[0-9]+\.wasm$/, '/chunk_*.wasm');

/** The budgets as committed (or as in the working tree, without `commit`). */
export function readBudget(commit) {
  const text = commit
    ? execFileSync('git', ['show', `${commit}:${BUDGET_FILE}`], { cwd: root, encoding: 'utf8' })
    : readFileSync(new URL(`../${BUDGET_FILE}`, import.meta.url), 'utf8');
  return JSON.parse(text).files;
}

/** Files over their budget, and shipped files without one: `[]` when all is well. */
export function overBudget(sizes = packageSizes(), budget = readBudget()) {
  const problems = [];
  for (const row of sizes.rows) {
    const limit = budget[budgetKey(row.file)];
    if (!limit) problems.push(`${row.file} has no budget in ${BUDGET_FILE}`);
    else if (row.gzip > limit.gzip) problems.push(`${row.file} is ${row.gzip} bytes gzip, over its budget of ${limit.gzip}`);
  }
  return problems;
}

/** Each commit that raised a file's budget without giving it a new reason:
 * `[]` when every rise in the file's history says why (or git has no history here). */
export function unexplainedRises() {
  let commits;
  try {
    commits = execFileSync('git', ['log', '--format=%H', '--', BUDGET_FILE], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .reverse();
  } catch {
    return [];
  }
  const versions = commits.map((commit) => ({ commit, files: readBudget(commit) }));
  versions.push({ commit: 'the working tree', files: readBudget() });
  const problems = [];
  for (let i = 1; i < versions.length; i += 1) {
    for (const file of risesWithoutReason(versions[i - 1].files, versions[i].files)) {
      problems.push(`${versions[i].commit} raised ${file}'s budget without a new reason`);
    }
  }
  return problems;
}

/** The files whose budget rose from `before` to `after` without a new reason. */
export function risesWithoutReason(before, after) {
  return Object.entries(after)
    .filter(([file, limit]) => {
      const old = before[file];
      return old && limit.gzip > old.gzip && (!limit.reason || limit.reason === old.reason);
    })
    .map(([file]) => file);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const budget = readBudget();
  for (const row of packageSizes().rows) {
    const limit = budget[budgetKey(row.file)]?.gzip;
    console.log(`${row.file}: ${row.gzip} / ${limit ?? 'no budget'}`);
  }
  const problems = [...overBudget(), ...unexplainedRises()];
  for (const problem of problems) console.error(problem);
  process.exitCode = problems.length ? 1 : 0;
}
