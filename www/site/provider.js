// Which model answers, with no configuration: the in-browser model when the server offers one
// (`/config.json` `localModel`), else the demo model running in this page; the mock server and
// any endpoint set in the chat widget's settings are one choice away. No API key is ever stored:
// settings from the widget live in this page's memory only.
import { demoProvider } from './demo-model.js';

const CHOICE_KEY = 'lectern-site-model';

/** The choices this server and session offer: `{ id, label, provider() }`. */
export function modelChoices(config, custom) {
  const choices = [];
  if (config.localModel) {
    choices.push({ id: 'local', label: `In-browser model (${config.localModel.name})`, provider: () => localProvider(config.localModel) });
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

/** The running wllama, stopped when the model changes. */
let wllama = null;

/** Stops the in-browser model, if one runs. */
export async function stopLocal() {
  await wllama?.exit();
  wllama = null;
}

/** A `custom` provider answering with the server's GGUF in this page (wllama through lectern/wllama). */
async function localProvider(model) {
  const [{ LoggerWithoutDebug, Wllama }, { loadWllamaModel, wllamaProvider }] = await Promise.all([
    import('/wllama/index.js'),
    import('/pkg/lectern_wllama.js'),
  ]);
  const status = document.querySelector('#model-status');
  wllama = new Wllama(
    { default: '/wllama/wasm/wllama.wasm' },
    { logger: LoggerWithoutDebug, suppressNativeLog: true, allowOffline: true },
  );
  wllama.setCompat?.(null); // never fetch wllama's fallback build from its CDN
  const ready = loadWllamaModel(wllama, new URL(model.url, location.href).href, {
    n_threads: 1,
    n_ctx: 2048,
    onProgress: ({ phase, loaded, total }) => {
      const share = phase === 'download' && total ? ` ${Math.round((100 * loaded) / total)} %` : '';
      status.textContent = phase === 'ready' ? `${model.name} is ready, in this page` : `Loading ${model.name}: ${phase}${share}`;
    },
  });
  return wllamaProvider(wllama, { model: model.name, ready, maxTokens: 200 });
}
