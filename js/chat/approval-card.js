// An approval card: the calls a paused turn waits on, each with Approve, Run my version
// (the arguments edited as JSON, validated by the engine against the tool's schema) and
// Reject (with a reason). Focusable as a whole; every action is a plain button.
import { h, prettyJson } from './dom.js';

let serial = 0;

/**
 * The card for a paused turn. `decide(decision)` resolves when the engine has taken it and
 * rejects with its typed error, shown inline (the card stays).
 */
export function approvalCard({ turnId, calls }, decide) {
  const id = `approval-${++serial}`;
  const heading = h('p', { id, class: 'heading' }, calls.length === 1 ? `Approve running ${calls[0].toolName}?` : 'Approve running these tools?');
  const card = h('li', { part: 'approval-card', class: 'approval-card', role: 'group', tabIndex: -1, 'aria-labelledby': id, 'data-turn-id': turnId }, heading);
  for (const call of calls) card.append(callBox(call, decide, id));
  return card;
}

function callBox(call, decide, prefix) {
  const argsId = `${prefix}-${call.callId}-args`;
  const reasonId = `${prefix}-${call.callId}-reason`;
  const problem = h('p', { class: 'problem', role: 'alert' });
  const args = h('textarea', { id: argsId, class: 'arguments', rows: 4, spellcheck: false, value: prettyJson(call.arguments) });
  const reason = h('input', { id: reasonId, class: 'reason', type: 'text', placeholder: 'optional' });
  const buttons = [];
  const run = async (decision) => {
    problem.textContent = '';
    buttons.forEach((b) => (b.disabled = true));
    try {
      await decide({ callId: call.callId, ...decision });
    } catch (error) {
      problem.textContent = `${error?.name ?? 'Error'}: ${error?.message ?? error}`;
      buttons.forEach((b) => (b.disabled = false));
    }
  };
  const approve = h('button', { type: 'button', class: 'approve primary', onclick: () => run({ decision: 'approve' }) }, 'Approve');
  const edit = h('button', {
    type: 'button',
    class: 'edit',
    onclick: () => {
      let edited;
      try {
        edited = JSON.parse(args.value);
      } catch (error) {
        problem.textContent = `Not valid JSON: ${error.message}`;
        return;
      }
      run({ decision: 'edit', arguments: edited });
    },
  }, 'Run my version');
  const reject = h('button', {
    type: 'button',
    class: 'reject',
    onclick: () => run({ decision: 'reject', ...(reason.value.trim() ? { reason: reason.value.trim() } : {}) }),
  }, 'Reject');
  buttons.push(approve, edit, reject);
  return h(
    'div',
    { class: 'call', 'data-call-id': call.callId },
    h('label', { for: argsId }, `Arguments of ${call.toolName} (JSON)`),
    args,
    h('label', { for: reasonId }, 'Reason, if you reject'),
    reason,
    h('div', { class: 'row' }, approve, edit, reject),
    problem,
  );
}
