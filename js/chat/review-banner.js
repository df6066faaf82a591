// A banner for a headless run of the conversation that ended `proposed` (it ran a tool that may
// have changed something): what it was asked, what it answered, the tools it ran, what it did (each
// of its tool calls as a card, with its arguments and what came of it, from the run's records),
// then Accept, or Reject, each with an optional note (`reviewRun`). A labelled group; plain buttons.
import { h } from './dom.js';
import { toolCard } from './tool-card.js';

/** The run's tool calls as cards, in order, folded under "What it did". */
function runLog(run) {
  if (!run.toolCalls.length) return null;
  const cards = run.toolCalls.map((record) => {
    const { card, update } = toolCard({ callId: record.id, toolName: record.name, arguments: record.arguments ?? record.argumentsText, costUsd: record.stepCostUsd });
    update(record);
    return card;
  });
  const calls = run.toolCalls.length === 1 ? '1 tool call' : `${run.toolCalls.length} tool calls`;
  return h('details', { class: 'run-log' }, h('summary', { class: 'run-log-heading' }, `What it did: ${calls}`), ...cards);
}

/**
 * The banner of `run`. `review(decision, note)` resolves once the engine has taken it and
 * rejects with its typed error, shown inline (the banner stays).
 */
export function reviewBanner(run, review) {
  const id = `review-${run.runId}`;
  const note = h('input', { id: `${id}-note`, class: 'note', type: 'text', placeholder: 'optional' });
  const problem = h('p', { class: 'problem', role: 'alert' });
  const buttons = [];
  const decide = async (decision) => {
    problem.textContent = '';
    buttons.forEach((b) => (b.disabled = true));
    try {
      await review(decision, note.value.trim() || undefined);
    } catch (error) {
      problem.textContent = `${error?.name ?? 'Error'}: ${error?.message ?? error}`;
      buttons.forEach((b) => (b.disabled = false));
    }
  };
  const accept = h('button', { type: 'button', class: 'accept primary', onclick: () => decide('accept') }, 'Accept');
  const reject = h('button', { type: 'button', class: 'reject', onclick: () => decide('reject') }, 'Reject');
  buttons.push(accept, reject);
  const ran = [...new Set(run.toolCalls.filter((r) => r.attempts > 0).map((r) => r.name))];
  return h(
    'li',
    { part: 'review-banner', class: 'review-banner', role: 'group', 'aria-labelledby': `${id}-heading`, 'data-run-id': run.runId },
    h('p', { id: `${id}-heading`, class: 'heading' }, `A background run needs your review: “${run.instruction}”`),
    run.text ? h('p', { class: 'answer' }, run.text) : null,
    ran.length ? h('p', { class: 'tools' }, `Tools it ran: ${ran.join(', ')}`) : null,
    runLog(run),
    h('label', { for: `${id}-note` }, 'Note, if any'),
    note,
    h('div', { class: 'row' }, accept, reject),
    problem,
  );
}
