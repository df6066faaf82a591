// LLM-as-judge: one model call decides whether an answer says what was expected.
//
//   judgeResponse(provider, actual, expected) -> Promise<boolean>
//
// provider: { kind: 'openai' | 'anthropic', apiKey, model?, baseUrl? }.
// The verdict is the first word of the judge's reply: YES or NO.

const PROMPT = (actual, expected) =>
  `You grade answers. Reply with YES or NO as the first word, then one short sentence of reason.\n\n` +
  `Does the ACTUAL answer satisfy the EXPECTATION?\n\nEXPECTATION:\n${expected}\n\nACTUAL:\n${actual}`;

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

export async function judgeResponse(provider, actual, expected) {
  const prompt = PROMPT(actual, expected);
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
  return verdictOf(text) === 'YES';
}
