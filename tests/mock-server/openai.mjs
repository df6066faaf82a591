// OpenAI chat-completions answers: one `chat.completion`, or its SSE chunks.
import { textDeltas, fragments, argumentsText, usageFor, sse, newId } from './common.mjs';

export function buildOpenAI(turn, body) {
  const id = newId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? 'mock';
  const calls = (turn.toolCalls ?? []).map((c, i) => ({ id: c.id ?? newId(`call_${i}_`), name: c.name, args: argumentsText(c) }));
  const finish = turn.finishReason ?? (calls.length ? 'tool_calls' : 'stop');
  const { inputTokens, outputTokens } = usageFor(turn, body);
  // DeepSeek and LM Studio name it `reasoning_content`, Ollama and vLLM `reasoning`.
  const field = turn.reasoningField ?? 'reasoning_content';
  const reasoning = turn.reasoning ? { [field]: turn.reasoning } : {};
  const usage = { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens };

  const whole = {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text ?? (calls.length ? null : ''),
          ...reasoning,
          ...(calls.length
            ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) }
            : {}),
        },
        finish_reason: finish,
      },
    ],
    usage,
  };

  const chunk = (delta, finish_reason = null) =>
    sse({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason }] });
  const chunks = [chunk({ role: 'assistant', content: '' })];
  // Reasoning pieces come with `content: null`, then the text with the reasoning field null, as real servers send them.
  for (const piece of textDeltas(turn.reasoning ?? '')) chunks.push(chunk({ content: null, [field]: piece }));
  const quiet = turn.reasoning ? { [field]: null } : {};
  for (const piece of textDeltas(turn.text ?? '')) chunks.push(chunk({ content: piece, ...quiet }));
  calls.forEach((c, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    for (const part of fragments(c.args)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  });
  chunks.push(chunk({}, finish));
  if (body.stream_options?.include_usage) {
    chunks.push(sse({ id, object: 'chat.completion.chunk', created, model, choices: [], usage }));
  }
  chunks.push('data: [DONE]\n\n');
  return { whole, chunks };
}
