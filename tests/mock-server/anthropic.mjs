// Anthropic Messages answers: one `message`, or its SSE events.
import { textDeltas, fragments, argumentsText, usageFor, sse, newId } from './common.mjs';

/** A thinking block's signature: the turn's own, or one derived from its text. */
const signatureOf = (turn) => turn.signature ?? `mock-sig-${Buffer.from(turn.reasoning).toString('base64').slice(0, 16)}`;

export function buildAnthropic(turn, body) {
  const id = newId('msg_');
  const model = body.model ?? 'mock';
  const calls = (turn.toolCalls ?? []).map((c) => ({ id: c.id ?? newId('toolu_'), name: c.name, args: argumentsText(c) }));
  const stopReason = turn.stopReason ?? (calls.length ? 'tool_use' : 'end_turn');
  const { inputTokens, outputTokens } = usageFor(turn, body);

  const content = [];
  if (turn.reasoning) content.push({ type: 'thinking', thinking: turn.reasoning, signature: signatureOf(turn) });
  if (turn.redacted) content.push({ type: 'redacted_thinking', data: turn.redacted });
  if (turn.text) content.push({ type: 'text', text: turn.text });
  for (const c of calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.args || '{}') });
  const whole = {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: outputTokens, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  };

  const events = [
    sse(
      {
        type: 'message_start',
        message: { ...whole, content: [], stop_reason: null, usage: { ...whole.usage, output_tokens: 1 } },
      },
      'message_start',
    ),
  ];
  let index = 0;
  if (turn.reasoning) {
    const start = { type: 'thinking', thinking: '', signature: '' };
    events.push(sse({ type: 'content_block_start', index, content_block: start }, 'content_block_start'));
    for (const piece of textDeltas(turn.reasoning)) {
      events.push(sse({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } }, 'content_block_delta'));
    }
    // The signature arrives just before the block's stop.
    const signature = { type: 'signature_delta', signature: signatureOf(turn) };
    events.push(sse({ type: 'content_block_delta', index, delta: signature }, 'content_block_delta'));
    events.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
    index++;
  }
  if (turn.redacted) {
    const start = { type: 'redacted_thinking', data: turn.redacted };
    events.push(sse({ type: 'content_block_start', index, content_block: start }, 'content_block_start'));
    events.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
    index++;
  }
  if (turn.text) {
    events.push(sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start'));
    events.push(sse({ type: 'ping' }, 'ping'));
    for (const piece of textDeltas(turn.text)) {
      events.push(sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }, 'content_block_delta'));
    }
    events.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
    index++;
  }
  for (const c of calls) {
    events.push(
      sse({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } }, 'content_block_start'),
    );
    for (const part of fragments(c.args)) {
      events.push(
        sse({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } }, 'content_block_delta'),
      );
    }
    events.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
    index++;
  }
  events.push(
    sse({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } }, 'message_delta'),
  );
  events.push(sse({ type: 'message_stop' }, 'message_stop'));
  return { whole, chunks: events };
}
