// Helpers shared by the OpenAI and Anthropic answer builders.

/** Splits text into word-sized deltas ("Hello", " there", ...), keeping every character. */
export function textDeltas(text) {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/** Splits a string into fragments of `size` characters (by code point). */
export function fragments(text, size = 3) {
  const chars = Array.from(text);
  const out = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** The arguments of a scripted tool call as JSON text. */
export function argumentsText(call) {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
}

/** Rough token counts: a token per four characters of the request, a token per word of the answer. */
export function usageFor(turn, body) {
  const inputTokens = turn.usage?.inputTokens ?? Math.max(1, Math.ceil(JSON.stringify(body.messages ?? []).length / 4));
  const outputTokens =
    turn.usage?.outputTokens ??
    Math.max(
      1,
      textDeltas(turn.text ?? '').length + textDeltas(turn.reasoning ?? '').length + (turn.toolCalls ?? []).length * 10,
    );
  return { inputTokens, outputTokens };
}

export const sse = (data, event) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** A provider's error event in the middle of a stream: Anthropic's `event: error`, or OpenAI's `data: {"error": …}`. */
export function streamErrorEvent(protocol, type, message = `mock ${type}`) {
  return protocol === 'anthropic'
    ? sse({ type: 'error', error: { type, message } }, 'error')
    : sse({ error: { message, type, code: null } });
}

let counter = 0;
/** A fresh id with a prefix. */
export const newId = (prefix) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;
