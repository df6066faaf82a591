// "Demo model (no AI)": a `custom` provider running in this page, with no network and no model.
// Asked a question about the open book, it calls search_book with the question; given the
// passages, it streams them back as quotes, word by word. It understands nothing: it shows the
// flow (tool call, page-bounded search, streamed answer) with no model to download or pay for.

export const DEMO_MODEL = 'demo-no-ai';
const WORD_DELAY_MS = 12;
const QUOTE_CHARS = 320;

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new DOMException('Aborted', 'AbortError'));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason ?? new DOMException('Aborted', 'AbortError'));
    });
  });

/** The text of an OpenAI-format message's content (a string or parts). */
function textOf(content) {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => part.text ?? '').join('');
}

/** The passages of a search_book result, `[Pages X-Y]` headers kept. */
function passages(result) {
  return result
    .split(/\n\n(?=\[Pages \d+-\d+\]\n)/)
    .map((block) => block.match(/^\[Pages (\d+)-(\d+)\]\n([\s\S]*)$/))
    .filter(Boolean)
    .map(([, from, to, text]) => ({ pages: from === to ? `page ${from}` : `pages ${from}–${to}`, text }));
}

/** About QUOTE_CHARS of `text` around the rarest word of `question` it contains, cut at words. */
export function excerpt(text, question) {
  const lower = text.toLowerCase();
  const words = [...new Set(question.toLowerCase().match(/\p{L}[\p{L}\p{N}'’-]{3,}/gu) ?? [])];
  const found = words
    .map((word) => ({ word, at: lower.indexOf(word), count: lower.split(word).length - 1 }))
    .filter((w) => w.at >= 0)
    .sort((a, b) => a.count - b.count || b.word.length - a.word.length);
  let start = found.length ? Math.max(0, found[0].at - 80) : 0;
  if (start > 0) start = text.indexOf(' ', start) + 1 || start; // at a word
  let quote = text.slice(start);
  if (quote.length > QUOTE_CHARS) quote = `${quote.slice(0, QUOTE_CHARS).replace(/\s+\S*$/, '')} …`;
  return start > 0 ? `… ${quote}` : quote;
}

/** The answer: the question's best passages quoted, or why there are none. */
export function demoAnswer(question, result) {
  const found = passages(result).slice(0, 2);
  if (!found.length) return `Demo model (no AI): the book has no passage about “${question}” up to your page.`;
  const quotes = found.map(({ pages, text }) => `**From ${pages}:** “${excerpt(text, question).replace(/\s*\n+\s*/g, ' ')}”`);
  return `Demo model (no AI) — what the book says about “${question}”, up to your page:\n\n${quotes.join('\n\n')}`;
}

function completion(message, finishReason) {
  return {
    id: `demo-${Date.now()}`,
    object: 'chat.completion',
    model: DEMO_MODEL,
    choices: [{ index: 0, message, finish_reason: finishReason }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

async function* streamed(text, signal) {
  const words = text.split(/(?<=\s)/);
  for (const word of words) {
    await sleep(WORD_DELAY_MS, signal);
    yield { id: 'demo', object: 'chat.completion.chunk', model: DEMO_MODEL, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] };
  }
  yield { id: 'demo', object: 'chat.completion.chunk', model: DEMO_MODEL, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] };
}

/** The `custom` provider's call: search first, then quote. */
async function call(request, { signal } = {}) {
  const messages = request.messages ?? [];
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const question = textOf(messages[lastUser]?.content).trim();
  const result = messages.slice(lastUser + 1).findLast((m) => m.role === 'tool');
  const canSearch = (request.tools ?? []).some((t) => t.function?.name === 'search_book');
  if (!result && canSearch) {
    const toolCall = { id: `call_${Date.now()}`, type: 'function', function: { name: 'search_book', arguments: JSON.stringify({ query: question }) } };
    return completion({ role: 'assistant', content: null, tool_calls: [toolCall] }, 'tool_calls');
  }
  const text = result
    ? demoAnswer(question, textOf(result.content))
    : 'Demo model (no AI): open a book and ask about it — I can only quote the book.';
  return streamed(text, signal);
}

/** The provider options for `Lectern.open`. */
export function demoProvider() {
  return { kind: 'custom', model: DEMO_MODEL, stream: true, local: true, call };
}
