// An approval card: the calls a paused turn waits on, each shown as what the tool does and its
// arguments as labelled fields (long values folded), with Approve, Always allow (this tool, for
// the rest of the conversation), Reject (with a reason) and, one click away, the arguments as
// JSON to edit and run (validated by the engine against the tool's schema). Focusable as a
// whole; every action is a plain button.
import { h, prettyJson } from './dom.js';

let serial = 0;

/** Values longer than this (or of several lines) are folded under their first words. */
const FOLD_AT = 120;

/**
 * The card for a paused turn. `decide(decision)` resolves when the engine has taken it and
 * rejects with its typed error, shown inline (the card stays). `describe(toolName)`: the tool's
 * `ToolDefinition`, if known (its description, and its schema's required fields first).
 */
export function approvalCard({ turnId, calls }, decide, describe = () => undefined) {
  const id = `approval-${++serial}`;
  const heading = h('p', { id, class: 'heading' }, calls.length === 1 ? `Approve running ${calls[0].toolName}?` : 'Approve running these tools?');
  const card = h('li', { part: 'approval-card', class: 'approval-card', role: 'group', tabIndex: -1, 'aria-labelledby': id, 'data-turn-id': turnId }, heading);
  for (const call of calls) card.append(callBox(call, decide, id, describe(call.toolName)));
  return card;
}

function callBox(call, decide, prefix, definition) {
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
  const always = h('button', {
    type: 'button',
    class: 'always',
    title: `Run ${call.toolName} without asking for the rest of this conversation`,
    onclick: () => run({ decision: 'approveAlways' }),
  }, `Always allow ${call.toolName}`);
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
  buttons.push(approve, always, edit, reject);
  const raw = h('details', { class: 'raw' },
    h('summary', {}, 'Edit the arguments as JSON'),
    h('label', { for: argsId }, `Arguments of ${call.toolName} (JSON)`),
    args,
    h('div', { class: 'row' }, edit));
  return h(
    'div',
    { class: 'call', 'data-call-id': call.callId },
    definition?.description ? h('p', { class: 'description' }, `${call.toolName}: ${definition.description}`) : null,
    h('dl', { class: 'fields', 'aria-label': `Arguments of ${call.toolName}` }, ...fields(call.arguments, definition?.parameters?.required)),
    raw,
    h('label', { for: reasonId }, 'Reason, if you reject'),
    reason,
    h('div', { class: 'row' }, approve, always, reject),
    problem,
  );
}

/** The arguments as `dt`/`dd` pairs, one per top-level field: the schema's required ones in its order, then the rest. */
function fields(args, required = []) {
  const rank = (name) => (required.includes(name) ? required.indexOf(name) : required.length);
  const entries = args && typeof args === 'object' && !Array.isArray(args)
    ? Object.entries(args).sort(([a], [b]) => rank(a) - rank(b))
    : [['arguments', args]];
  if (!entries.length) return [h('dt', {}, 'No arguments')];
  return entries.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, fieldValue(value))]);
}

/** A value as text: short ones as they are, long or multi-line ones folded under their start. */
function fieldValue(value) {
  const text = typeof value === 'string' ? value : prettyJson(value);
  const chars = [...text];
  if (chars.length <= FOLD_AT && !text.includes('\n')) return text;
  const start = chars.slice(0, 60).join('').replace(/\s+/g, ' ');
  return h('details', { class: 'folded' }, h('summary', {}, `${start}… (${chars.length} characters)`), h('pre', {}, text));
}
