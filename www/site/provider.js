// Which model answers, with no configuration: the in-browser model when the server offers one
// (`/config.json` `localModel`), else the demo model running in this page; the mock server and
// any endpoint set in the chat widget's settings are one choice away. No API key is ever stored:
// settings from the widget live in this page's memory only.
import { demoProvider } from './demo-model.js';
import { localModelProvider } from './local-model.js';

const CHOICE_KEY = 'lectern-site-model';

/** The choices this server and session offer: `{ id, label, provider() }`. */
export function modelChoices(config, custom) {
  const choices = [];
  if (config.localModel) {
    choices.push({ id: 'local', label: `In-browser model (${config.localModel.name})`, provider: () => localModelProvider(config.localModel, { status: document.querySelector('#model-status') }) });
  }
  choices.push({ id: 'demo', label: 'Demo model (no AI)', provider: async () => demoProvider() });
  if (config.mockBaseUrl) {
    choices.push({
      id: 'mock',
      label: 'Mock server (scripted replies)',
      provider: async () => ({ kind: 'openai', baseUrl: config.mockBaseUrl, model: 'mock', stream: true }),
    });
  }
  if (custom) {
    choices.push({ id: 'custom', label: `${custom.model} at ${custom.baseUrl || custom.kind}`, provider: async () => customProvider(custom) });
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
