// The ledger of one fault: issue 10's four promises checked against what the
// database holds after the fault, what the tools counted and what failed.
import { readFileSync } from 'node:fs';

/** Lectern's error names, as `Error::name` in `src/error.rs` spells them. */
export const ERROR_NAMES = new Set(
  [...readFileSync(new URL('../../../src/error.rs', import.meta.url), 'utf8').matchAll(/=> "(\w+Error)"/g)].map((m) => m[1]),
);

/** The messages of each turn: a user message and everything up to the next one. */
function turns(messages) {
  const out = [];
  for (const message of messages) {
    if (message.role === 'user' || out.length === 0) out.push([]);
    out.at(-1).push(message);
  }
  return out;
}

/** Assistant messages stored twice within one turn (same content and tool calls). */
function duplicatedAnswers(messages) {
  const duplicates = [];
  for (const turn of turns(messages)) {
    const seen = new Set();
    for (const m of turn.filter((m) => m.role === 'assistant')) {
      const key = JSON.stringify([m.content, m.toolCalls ?? []]);
      if (seen.has(key)) duplicates.push(m.content || `tool calls ${key}`);
      seen.add(key);
    }
  }
  return duplicates;
}

/**
 * The ledger of a row.
 *
 * - `userTexts`: every message the row sent; `messages`, `toolCalls`: what a reopened database holds;
 * - `runs`: `{ 'tool:callId': n }` counted by the tools themselves;
 * - `errors`: every failure the row saw (`{ name, message, … }`).
 */
export function ledger({ userTexts, messages, toolCalls, runs, errors }) {
  const userCounts = Object.fromEntries(userTexts.map((text) => [text, 0]));
  for (const m of messages.filter((m) => m.role === 'user')) userCounts[m.content] = (userCounts[m.content] ?? 0) + 1;
  const recordCounts = {};
  for (const record of toolCalls) recordCounts[record.id] = (recordCounts[record.id] ?? 0) + 1;
  return {
    userCounts,
    userOnce: Object.entries(userCounts).every(([text, n]) => n === 1 && userTexts.includes(text)),
    duplicatedAnswers: duplicatedAnswers(messages),
    ranTwice: [
      ...Object.entries(runs).filter(([, n]) => n > 1).map(([key, n]) => `${key} ran ${n}×`),
      ...Object.entries(recordCounts).filter(([, n]) => n > 1).map(([id, n]) => `${id} recorded ${n}×`),
    ],
    errorNames: errors.map((e) => e.name),
    untyped: errors.map((e) => e.name).filter((name) => !ERROR_NAMES.has(name)),
  };
}

/** Whether the ledger keeps all four promises. */
export function ledgerProblems(book) {
  const problems = [];
  if (!book.userOnce) problems.push(`user messages not stored exactly once: ${JSON.stringify(book.userCounts)}`);
  if (book.duplicatedAnswers.length) problems.push(`assistant messages duplicated: ${JSON.stringify(book.duplicatedAnswers)}`);
  if (book.ranTwice.length) problems.push(`tools ran twice: ${book.ranTwice.join(', ')}`);
  if (book.untyped.length) problems.push(`untyped errors: ${book.untyped.join(', ')}`);
  return problems;
}
