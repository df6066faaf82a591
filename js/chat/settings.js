// The settings panel: provider kind, base URL, model (typed, or picked from the host's list),
// API key, streaming. The key stays in
// memory (or sessionStorage with key-storage="session"); the host reopens Lectern on
// `lectern-settings-change` and sets `chat.lectern`.
import { h } from './dom.js';

const SESSION_KEY = 'lectern-chat-api-key';

/** Where the API key lives: a field, or sessionStorage when the host opts in. */
export class KeyStore {
  #key = '';
  constructor(useSession) {
    this.useSession = useSession;
  }
  get() {
    if (this.useSession) return sessionStorage.getItem(SESSION_KEY) ?? '';
    return this.#key;
  }
  set(key) {
    if (this.useSession) {
      if (key) sessionStorage.setItem(SESSION_KEY, key);
      else sessionStorage.removeItem(SESSION_KEY);
    } else {
      this.#key = key;
    }
  }
}

/** The panel; `onSave(settings)` gets `{ kind, baseUrl, model, apiKey, stream }`. */
export function settingsPanel(onSave) {
  const field = (label, input) => h('label', {}, label, input);
  const kind = h('select', { name: 'kind' },
    h('option', { value: 'openai' }, 'OpenAI-compatible (OpenAI, Ollama, LM Studio, vLLM, llama.cpp)'),
    h('option', { value: 'anthropic' }, 'Anthropic Messages'));
  const baseUrl = h('input', { name: 'baseUrl', type: 'url', required: true, placeholder: 'https://api.openai.com/v1' });
  const typed = h('input', { name: 'model', required: true, placeholder: 'gpt-4o-mini' });
  const listed = h('select', { name: 'model', required: true });
  // Free text, or the host's list of models when it gives one (`chat.models`).
  let model = typed;
  const apiKey = h('input', { name: 'apiKey', type: 'password', autocomplete: 'off', placeholder: 'optional for local servers' });
  const stream = h('input', { name: 'stream', type: 'checkbox', checked: true });
  const form = h('form', {
    onsubmit: (event) => {
      event.preventDefault();
      onSave({ kind: kind.value, baseUrl: baseUrl.value.trim(), model: model.value.trim(), apiKey: apiKey.value, stream: stream.checked });
      panel.open = false;
    },
  },
  field('Provider', kind), field('Base URL', baseUrl), h('label', { class: 'model' }, 'Model', model), field('API key', apiKey),
  h('label', { class: 'row' }, stream, 'Stream replies'),
  h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, 'Save')),
  h('p', { class: 'hint' }, 'The key is kept in this page only (never written to disk by the chat).'));
  const panel = h('details', { part: 'settings', class: 'settings' }, h('summary', {}, 'Model settings'), form);
  /** Shows `settings` (without touching what the user is typing in an open panel). */
  const fill = (settings = {}, key = '') => {
    if (settings.kind) kind.value = settings.kind;
    baseUrl.value = settings.baseUrl ?? baseUrl.value;
    if (settings.model !== undefined) {
      typed.value = settings.model;
      listed.value = settings.model;
    }
    apiKey.value = key;
    stream.checked = settings.stream !== false;
  };
  /**
   * Offers `models` (`[{ id, label? } | id]`) as a list to pick from, the current choice kept
   * when listed; none (or an empty list): the model typed as free text.
   */
  const setModels = (models = []) => {
    const current = model.value;
    const items = models.map((m) => (typeof m === 'string' ? { id: m, label: m } : { id: m.id, label: m.label ?? m.id }));
    listed.replaceChildren(...items.map((m) => h('option', { value: m.id }, m.label)));
    const next = items.length ? listed : typed;
    if (items.some((m) => m.id === current)) listed.value = current;
    typed.value = current || typed.value;
    if (next !== model) {
      model.replaceWith(next);
      model = next;
    }
  };
  return { panel, fill, setModels };
}
