// The fault matrix as a Markdown table: fault → outcome → ledger.

const HEADER = ['fault', 'outcome', 'user messages stored once', 'assistant message duplicated', 'tool run twice', 'failures typed'];

const cell = (text) => String(text).replaceAll('|', '\\|').replaceAll('\n', ' ');

function ledgerCells(book) {
  if (!book) return ['?', '?', '?', '?'];
  const counts = Object.entries(book.userCounts).map(([text, n]) => `“${text}” ×${n}`);
  return [
    book.userOnce ? 'yes' : `**no**: ${counts.join(', ')}`,
    book.duplicatedAnswers.length ? `**yes**: ${book.duplicatedAnswers.length}` : 'no',
    book.ranTwice.length ? `**yes**: ${book.ranTwice.join(', ')}` : 'no',
    book.untyped.length ? `**no**: ${book.untyped.join(', ')}` : book.errorNames.length ? `yes: ${[...new Set(book.errorNames)].join(', ')}` : 'none failed',
  ];
}

/** `rows`: `[{ fault, outcome, ledger }]`, in the order the faults ran. */
export function markdownTable(rows) {
  const lines = [HEADER, HEADER.map(() => '---')].map((r) => `| ${r.join(' | ')} |`);
  for (const row of rows) lines.push(`| ${[row.fault, row.outcome, ...ledgerCells(row.ledger)].map(cell).join(' | ')} |`);
  return `${lines.join('\n')}\n`;
}
