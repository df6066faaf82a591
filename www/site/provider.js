// Which model answers, with no configuration: the in-browser model when the server offers one
// (`/config.json` `localModel`), else the demo model running in this page; the mock server and
// any endpoint set in the chat widget's settings are one choice away. No API key is ever stored:
// settings from the widget live in this page's memory only.
import { demoProvider } from './demo-model.js';
import { localModelProvider } from './local-model.js';
import { defaultThreads } from '/pkg/lectern_local_provider.js';
import { promptApiProvider } from '/pkg/lectern_prompt_api.js';

const CHOICE_KEY = 'lectern-site-model';

// What each model reads about the open book, as measured (docs/books.md, "Trusted answers"): a model
// that reads prompts fast gets the default context — the reader's two pages, the first passage
// naming each name asked about and ten passages for the question, within 1,500 tokens (84% of
// the reader questions measured hold their evidence in it); the in-browser model (Lectern's own
// decoder, ~60–75 prompt tokens a second on one thread) reads its system prompt ahead while the
// reader reads (app.js) and gets the passages that keep its first words within 5 s: on one thread
// three within 200 tokens began answers after 3.7 s (median; 300 tokens: 6.0 s for 8 facts of 32
// against 6); on two threads (the site served cross-origin isolated, in a browser with
// SharedArrayBuffer) three within 300 tokens began after 3.7 s (200 tokens: 2.3 s; npm run bench
// -- answers); its sources still show the reader what it read.
// The demo model calls search_book itself (the flow it shows), so it keeps tool use.
const RETRIEVAL = {
  fast: { strategy: 'alwaysRetrieve' },
  // It never cites the passages it is asked to (0 of 32 answers): it reads no citation rule.
  slow: { strategy: 'alwaysRetrieve', readerPages: 0, passages: 3, maxContextTokens: 200, citations: false },
  slowThreaded: { strategy: 'alwaysRetrieve', readerPages: 0, passages: 3, maxContextTokens: 300, citations: false },
  tools: { strategy: 'toolUse' },
};

/** The in-browser model's retrieval plan on `threads` threads (see RETRIEVAL). */
export function localRetrieval(threads) {
  return threads > 1 ? RETRIEVAL.slowThreaded : RETRIEVAL.slow;
}

/** The browser's own model (the Prompt API) as a choice, once `availability()` says `'available'`. */
const BROWSER_MODEL = {
  id: 'browser',
  label: "Your browser's model",
  about: "The model built into this browser answers in its own words on this device; each sentence shows the passage it cites, one the book does not hold is marked, and if it fails the answer quotes the book.",
  retrieval: { strategy: 'alwaysRetrieve' },
  provider: async () => promptApiProvider(),
};

/**
 * The choices this server and session offer: `{ id, label, about, retrieval, provider() }`;
 * `browserModel` is the Prompt API's availability (the browser's model first when `'available'`).
 */
export function modelChoices(config, custom, browserModel = 'unavailable') {
  // By measurement (docs/books.md, "Trusted answers"): the quoted answer finds the most reference facts
  // among the choices that show no wrong answer unmarked (its every word is the book's, 42 of 86
  // facts on the reader questions; the Demo model's quoted passages 38; SmolLM2 in the page 8 of
  // 32 and wrong in its own words), so it comes first; the in-browser model is one pick away,
  // each of its sentences checked against the passages it cites and marked when they do not hold
  // it. A pick is remembered.
  const choices = [{
    id: 'quotes',
    label: 'Quotes from the book (no AI)',
    about: 'Answers with the one to three sentences of the book, up to your page, that best answer the question, each with its page: nothing is invented, and it may miss.',
    retrieval: RETRIEVAL.fast,
    provider: async () => ({ kind: 'quotes' }),
  }];
  // The browser's own model, where there is one, answers first: a far larger model than the page can
  // run, under the same per-sentence gate (its download waits for the reader's click: app.js).
  if (browserModel === 'available') choices.unshift(BROWSER_MODEL);
  if (config.localModel) {
    // Planned before the model loads, from the threads lectern/local will ask for; once it has
    // loaded, each send says the plan of the threads it runs on (app.js: a threaded build that
    // fell back to one thread reads 200 tokens, not 300).
    const retrieval = localRetrieval(defaultThreads());
    choices.push({
      id: 'local',
      label: `In-browser model (${config.localModel.name})`,
      about: 'A small model running in this page answers in its own words, offline: it often gets things wrong, so each sentence shows the passage it cites, and one the book does not hold is marked.',
      retrieval,
      provider: () => localModelProvider(config.localModel, { status: document.querySelector('#model-status') }),
    });
  }
  choices.push({ id: 'demo', label: 'Demo model (no AI)', about: 'Shows the agent loop: it calls search_book with your question and quotes the passages it finds.', retrieval: RETRIEVAL.tools, provider: async () => demoProvider() });
  if (config.mockBaseUrl) {
    choices.push({
      id: 'mock',
      label: 'Mock server (scripted replies)',
      about: 'The test server: scripted replies over the OpenAI wire format.',
      retrieval: RETRIEVAL.tools, // its scripts call search_book
      provider: async () => ({ kind: 'openai', baseUrl: config.mockBaseUrl, model: 'mock', stream: true }),
    });
  }
  if (custom) {
    choices.push({ id: 'custom', label: `${custom.model} at ${custom.baseUrl || custom.kind}`, about: 'The endpoint set in the chat\'s settings; if it fails, the answer quotes the book.', retrieval: RETRIEVAL.fast, provider: async () => customProvider(custom) });
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
