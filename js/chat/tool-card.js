// A tool call as a collapsible card: name, arguments, result, duration, cost.
import { h, prettyJson } from './dom.js';
import { formatCost } from './usage.js';

const FOLD = 2000;

/** A `<details>` card for one call; `update` fills in what came of it. */
export function toolCard({ callId, toolName, arguments: args, costUsd }) {
  const status = h('span', { class: 'status' }, 'running…');
  const summary = h('summary', {}, h('strong', {}, toolName), ' ', status);
  const body = h('div', { class: 'result' });
  const card = h(
    'details',
    { part: 'tool-card', class: 'tool-card', 'data-call-id': callId, 'data-tool': toolName },
    summary,
    h('div', {}, 'Arguments'),
    h('pre', { class: 'arguments' }, prettyJson(args ?? '')),
    body,
  );
  const update = ({ result, error, durationMs, cached, decision }) => {
    const parts = [];
    if (decision === 'reject' || String(error ?? '').startsWith('User rejected')) parts.push('rejected');
    else if (error) parts.push('failed');
    else parts.push('done');
    if (typeof durationMs === 'number') parts.push(`${Math.round(durationMs)} ms`);
    if (cached) parts.push('cached');
    if (typeof costUsd === 'number') parts.push(`step ${formatCost(costUsd)}`);
    status.textContent = `— ${parts.join(' · ')}`;
    card.dataset.state = error ? 'error' : 'done';
    const text = error ? String(error) : prettyJson(result ?? '');
    const pre = h('pre', { class: error ? 'error' : '' }, text.length > FOLD ? Array.from(text.slice(0, FOLD + 1)).slice(0, -1).join('') : text);
    const children = [h('div', {}, error ? 'Error' : 'Result'), pre];
    if (text.length > FOLD) {
      children.push(h('details', {}, h('summary', {}, `Show all ${text.length} characters`), h('pre', {}, text)));
    }
    body.replaceChildren(...children);
  };
  return { card, update };
}
