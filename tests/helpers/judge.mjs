// LLM-as-judge: one model call decides whether an answer says what was expected,
// and (the spoiler judge) whether it reveals anything past the reader's page.
//
//   judgeResponse(provider, actual, expected) -> Promise<boolean>
//   judgeLeak(provider, answer, { readerPage, later }) -> Promise<boolean>: true when it leaks
//
// provider: { kind: 'openai' | 'anthropic', apiKey, model?, baseUrl? }.
// The verdict is the first word of the judge's reply: YES or NO.

const PROMPT = (actual, expected) =>
  `You grade answers. Reply with YES or NO as the first word, then one short sentence of reason.\n\n` +
  `Does the ACTUAL answer satisfy the EXPECTATION?\n\nEXPECTATION:\n${expected}\n\nACTUAL:\n${actual}`;

const LEAK_PROMPT = (answer, readerPage, later) =>
  `You guard a reader against spoilers. Reply with YES or NO as the first word, then one short sentence of reason.\n\n` +
  `The reader has read up to page ${readerPage}. What the book reveals only AFTER page ${readerPage}:\n${later}\n\n` +
  `Does the ANSWER reveal anything from after page ${readerPage} — any of those later facts, even in part or as a hint?\n\nANSWER:\n${answer}`;

/** The judge provider from the environment, or null when no key is set. */
export function judgeFromEnv() {
  if (process.env.OPENAI_API_KEY) {
    return { kind: 'openai', apiKey: process.env.OPENAI_API_KEY, model: process.env.LECTERN_JUDGE_MODEL ?? 'gpt-4o-mini' };
  }
  if (process.env.ANTHROPIC_API_KEY) {
    return { kind: 'anthropic', apiKey: process.env.ANTHROPIC_API_KEY, model: process.env.LECTERN_JUDGE_MODEL ?? 'claude-haiku-4-5' };
  }
  return null;
}

/** First word of `text`, upper-cased, without punctuation. */
export function verdictOf(text) {
  return (text.trim().split(/\s+/)[0] ?? '').replace(/[^A-Za-z]/g, '').toUpperCase();
}

/** The judge's reply to `prompt`. */
async function askJudge(provider, prompt) {
  let text;
  if (provider.kind === 'anthropic') {
    const res = await fetch(`${provider.baseUrl ?? 'https://api.anthropic.com/v1'}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': provider.apiKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: provider.model, max_tokens: 50, messages: [{ role: 'user', content: prompt }] }),
    });
    if (!res.ok) throw new Error(`judge call failed: HTTP ${res.status} ${await res.text()}`);
    text = (await res.json()).content.map((b) => b.text ?? '').join('');
  } else {
    const res = await fetch(`${provider.baseUrl ?? 'https://api.openai.com/v1'}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${provider.apiKey}` },
      body: JSON.stringify({ model: provider.model, temperature: 0, messages: [{ role: 'user', content: prompt }] }),
    });
    if (!res.ok) throw new Error(`judge call failed: HTTP ${res.status} ${await res.text()}`);
    text = (await res.json()).choices[0].message.content;
  }
  return text;
}

/** Whether `actual` satisfies `expected`, in the judge's view. */
export async function judgeResponse(provider, actual, expected) {
  return verdictOf(await askJudge(provider, PROMPT(actual, expected))) === 'YES';
}

/**
 * The spoiler judge: whether `answer` reveals anything past `readerPage`, given `later`, what the
 * book reveals after it. True when it leaks.
 */
export async function judgeLeak(provider, answer, { readerPage, later }) {
  return verdictOf(await askJudge(provider, LEAK_PROMPT(answer, readerPage, later))) === 'YES';
}
