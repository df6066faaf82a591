// <lectern-chat> standing alone: the mock model server by default, any OpenAI-compatible or
// Anthropic server through the chat's settings (the key stays in memory), the model in this
// page when the server offers one, and two tools: local_time, and save_note, which asks first.
import init, { Lectern } from '/pkg/lectern.js';
import '/pkg/chat/index.js';

const $ = (selector) => document.querySelector(selector);
const chat = $('#chat');
const CONVERSATION_KEY = 'lectern-chat-conversation';
const NOTES_KEY = 'lectern-chat-notes';

const serverConfig = await fetch('/config.json')
  .then((r) => (r.ok ? r.json() : {}))
  .catch(() => ({}));
// `?mock-session=NAME` talks to one scripted session of the mock server (the tests use it).
const mockSession = new URLSearchParams(location.search).get('mock-session');
const mockBaseUrl = serverConfig.mockBaseUrl ?? '';
const mockSettings = {
  kind: 'openai',
  baseUrl: mockSession ? mockBaseUrl.replace(/\/v1$/, `/s/${encodeURIComponent(mockSession)}/v1`) : mockBaseUrl,
  model: 'mock',
  stream: true,
};
const localModel = serverConfig.localModel ?? null;

// What @ offers in the chat, and what the model reads about each (resolveMention).
const MENTIONS = [
  { type: 'note', id: 'reading-list', label: 'reading-list', text: 'Reading list: The Man Who Was Thursday; Flatland.' },
  { type: 'person', id: 'syme', label: 'Gabriel Syme', text: 'Gabriel Syme is the poet who joins the police.' },
  { type: 'person', id: 'gregory', label: 'Lucian Gregory', text: 'Lucian Gregory is the anarchist poet.' },
];
chat.mentions = MENTIONS.map(({ type, id, label }) => ({ type, id, label }));
const resolveMention = ({ type, id }) => MENTIONS.find((m) => m.type === type && m.id === id)?.text ?? `(unknown ${type} ${id})`;

/** The running wllama, stopped when the settings change. */
let wllama = null;
let lectern = null;

/** A `custom` provider answering with the server's GGUF in this page; its load shows in the label. */
async function localProvider() {
  const [{ LoggerWithoutDebug, Wllama }, { loadWllamaModel, wllamaProvider }] = await Promise.all([
    import('/wllama/index.js'),
    import('/pkg/lectern_wllama.js'),
  ]);
  wllama = new Wllama({ default: '/wllama/wasm/wllama.wasm' }, { logger: LoggerWithoutDebug, suppressNativeLog: true });
  wllama.setCompat(null); // never fetch wllama's fallback build from its CDN
  const ready = loadWllamaModel(wllama, new URL(localModel.url, location.href).href, {
    n_threads: 1,
    n_ctx: 2048,
    useCache: false,
    onProgress: ({ phase, loaded, total }) => {
      const share = phase === 'download' && total ? ` ${Math.round((100 * loaded) / total)} %` : '';
      $('#model-label').textContent = phase === 'ready' ? `${localModel.name} is ready, in this page` : `Loading ${localModel.name}: ${phase}${share}`;
    },
  });
  return wllamaProvider(wllama, { model: localModel.name, ready, maxTokens: 200 });
}

function registerTools(instance) {
  instance.registerTool({
    name: 'save_note',
    description: "Saves a note in the reader's notebook",
    parameters: {
      type: 'object',
      properties: { title: { type: 'string' }, text: { type: 'string' } },
      required: ['title', 'text'],
      additionalProperties: false,
    },
    execute: ({ title, text }) => {
      const notes = JSON.parse(localStorage.getItem(NOTES_KEY) ?? '[]');
      notes.push({ title, text, savedAt: new Date().toISOString() });
      localStorage.setItem(NOTES_KEY, JSON.stringify(notes));
      return { saved: title, notes: notes.length };
    },
  });
  instance.registerTool({
    name: 'local_time',
    description: "The reader's local date, time and time zone",
    parameters: { type: 'object', properties: {} },
    execute: () => ({ now: new Date().toString(), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone }),
  });
}

/** Opens Lectern with `settings` (`kind: 'local'` for the model in this page) and hands it to the chat. */
async function use(settings, apiKey = '') {
  document.body.dataset.ready = 'false';
  chat.lectern = null;
  await lectern?.close();
  await wllama?.exit();
  wllama = null;
  const provider =
    settings.kind === 'local'
      ? await localProvider()
      : { kind: settings.kind, baseUrl: settings.baseUrl, model: settings.model, stream: settings.stream, ...(apiKey ? { apiKey } : {}) };
  // Made-up prices for the mock, so the chat's cost readout shows something.
  if (settings === mockSettings) provider.prices = { mock: { inputPerMTok: 1, outputPerMTok: 4 } };
  lectern = await Lectern.open({ dbName: 'lectern-chat', provider, resolveMention, approvals: { tools: { save_note: 'ask' } } });
  registerTools(lectern);
  if (settings.kind !== 'local') {
    chat.settings = settings;
    $('#model-label').textContent = settings === mockSettings ? 'Using the mock model server (it echoes you)' : `Using ${settings.model} at ${settings.baseUrl}`;
  }
  const remembered = sessionStorage.getItem(CONVERSATION_KEY);
  const known = remembered && (await lectern.conversations()).some((c) => c.id === remembered);
  chat.conversationId = known ? remembered : null;
  chat.lectern = lectern;
  await chat.ready;
  sessionStorage.setItem(CONVERSATION_KEY, chat.conversationId);
  document.body.dataset.ready = 'true';
}

async function safely(work) {
  try {
    await work();
  } catch (error) {
    $('#model-label').textContent = `${error.name}: ${error.message}`;
  }
}


chat.addEventListener('lectern-settings-change', (event) => {
  const { apiKey, ...settings } = event.detail;
  safely(() => use(settings, apiKey));
});
$('#use-mock').addEventListener('click', () => safely(() => use(mockSettings)));
if (localModel) {
  $('#use-local').hidden = false;
  $('#use-local').addEventListener('click', () => safely(() => use({ kind: 'local' })));
}
$('#new-conversation').addEventListener('click', async () => {
  await chat.clear();
  sessionStorage.setItem(CONVERSATION_KEY, chat.conversationId);
});

await init();
await safely(() => use(mockSettings));
