// Which model answers, with no configuration: the in-browser model when the server offers one
// (`/config.json` `localModel`), else the demo model running in this page; the mock server and
// any endpoint set in the chat widget's settings are one choice away. No API key is ever stored:
// settings from the widget live in this page's memory only.
import { demoProvider } from './demo-model.js';
import { localModelProvider } from './local-model.js';

const CHOICE_KEY = 'lectern-site-model';

// What each model reads about the open book, as measured (README, "Trusted answers"): a model
// that reads prompts fast gets the default context — the reader's two pages, the first passage
// naming each name asked about and ten passages for the question, within 1,500 tokens (84% of
// the reader questions measured hold their evidence in it); the in-browser model (Lectern's own
// decoder, ~70 prompt tokens a second on one thread) gets three short passages within 300
// tokens: its answers began after 8.5 s (median; five passages within 600 tokens found no more
// facts and took twice as long); its sources still show the reader what it read.
// The demo model calls search_book itself (the flow it shows), so it keeps tool use.
const RETRIEVAL = {
  fast: { strategy: 'alwaysRetrieve' },
  slow: { strategy: 'alwaysRetrieve', readerPages: 0, passages: 3, maxContextTokens: 300 },
  tools: { strategy: 'toolUse' },
};

/** The choices this server and session offer: `{ id, label, retrieval, provider() }`. */
export function modelChoices(config, custom) {
  // The Demo model first: on the reader questions (npm run bench -- answers) it found more of the
  // reference facts than the in-browser model, invented nothing, and answers at once; the
  // in-browser model is one pick away (and remembered once picked).
  const choices = [{ id: 'demo', label: 'Demo model (no AI)', retrieval: RETRIEVAL.tools, provider: async () => demoProvider() }];
  if (config.localModel) {
    choices.push({ id: 'local', label: `In-browser model (${config.localModel.name})`, retrieval: RETRIEVAL.slow, provider: () => localModelProvider(config.localModel, { status: document.querySelector('#model-status') }) });
  }
  if (config.mockBaseUrl) {
    choices.push({
      id: 'mock',
      label: 'Mock server (scripted replies)',
      retrieval: RETRIEVAL.tools, // its scripts call search_book
      provider: async () => ({ kind: 'openai', baseUrl: config.mockBaseUrl, model: 'mock', stream: true }),
    });
  }
  if (custom) {
    choices.push({ id: 'custom', label: `${custom.model} at ${custom.baseUrl || custom.kind}`, retrieval: RETRIEVAL.fast, provider: async () => customProvider(custom) });
  }
  return choices;
}

/** The provider options of the widget's settings (`lectern-settings-change` detail). */
function customProvider({ kind, baseUrl, model, apiKey, stream }) {
  return {
    kind: kind ?? 'openai',
    model,
    ...(baseUrl ? { baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(stream === undefined ? {} : { stream }),
  };
}

/** The choice to start with: the one picked last time if still offered, else the first. */
export function initialChoice(choices) {
  const saved = localStorage.getItem(CHOICE_KEY);
  return choices.find((c) => c.id === saved && c.id !== 'custom') ?? choices[0];
}

/** Remembers the picked choice (its id only). */
export function rememberChoice(id) {
  if (id !== 'custom') localStorage.setItem(CHOICE_KEY, id);
}
