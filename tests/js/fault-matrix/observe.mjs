// What a row observed, gathered after it ran, and its one-line outcome for the matrix.

/** Tool results the model was sent, in both wire formats, each once, in order. */
function toolResultsSent(requests) {
  const seen = new Set();
  for (const { protocol, body } of requests) {
    for (const m of body.messages ?? []) {
      if (protocol === 'openai' && m.role === 'tool') seen.add(m.content);
      if (protocol === 'anthropic' && Array.isArray(m.content)) {
        for (const block of m.content.filter((b) => b.type === 'tool_result')) seen.add(JSON.stringify(block.content));
      }
    }
  }
  return [...seen];
}

/** Drives `row` and gathers what happened: settled outcomes, model requests, the reopened database, tool runs. */
export async function observe(run, row, driver) {
  const driven = await driver(run, row);
  const requests = await run.requests();
  const stored = await run.stored(driven.conversationId);
  return { ...driven, requests, stored, modelRead: toolResultsSent(requests) };
}

function settledText({ value, error }) {
  if (!error) return value.status;
  const fields = ['status', 'reason', 'state'].filter((f) => error[f] !== undefined).map((f) => `${f} ${JSON.stringify(error[f])}`);
  if (error.partialText) fields.push(`partialText ${JSON.stringify(error.partialText)}`);
  return `\`${error.name}\`${fields.length ? ` (${fields.join(', ')})` : ''}`;
}

/** The outcome column: each settled call, the requests made, the tool errors the model read, notes. */
export function outcomeText(observed, note) {
  const parts = [observed.outcomes.map(settledText).join(' → ')];
  parts.push(`${observed.requests.length} model request${observed.requests.length === 1 ? '' : 's'}`);
  const errorsRead = observed.modelRead.filter((text) => text.includes('"error"'));
  if (errorsRead.length) parts.push(`the model read ${errorsRead.map((t) => `\`${t}\``).join(', ')}`);
  parts.push(...(observed.notes ?? []));
  if (note) parts.push(note(observed));
  return parts.join('; ');
}
