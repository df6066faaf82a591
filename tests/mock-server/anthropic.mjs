// Anthropic Messages answers: one `message`, or its SSE events.
import { textDeltas, fragments, argumentsText, usageFor, sse, newId } from './common.mjs';

export function buildAnthropic(turn, body) {
  const id = newId('msg_');
  const model = body.model ?? 'mock';
  const calls = (turn.toolCalls ?? []).map((c) => ({ id: c.id ?? newId('toolu_'), name: c.name, args: argumentsText(c) }));
  const stopReason = turn.stopReason ?? (calls.length ? 'tool_use' : 'end_turn');
  const { inputTokens, outputTokens } = usageFor(turn, body);

  const content = [];
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
