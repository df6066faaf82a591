// <lectern-chat> standing alone: the mock model server by default, any OpenAI-compatible or
// Anthropic server through the chat's settings (the key stays in memory), the model in this
// page when the server offers one, and two tools: local_time, and save_note, which asks first.
import init, { Lectern } from '/pkg/lectern.js';
import '/pkg/chat/index.js';
import { localModelProvider, stopLocalModel } from './site/local-model.js';

const $ = (selector) => document.querySelector(selector);
const chat = $('#chat');
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

let lectern = null;

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
    readOnly: true, // reads only: runs without asking (a tool that is not asks by default)
    execute: () => ({ now: new Date().toString(), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone }),
  });
}

/** Opens Lectern with `settings` (`kind: 'local'` for the model in this page) and hands it to the chat. */
async function use(settings, apiKey = '') {
  document.body.dataset.ready = 'false';
  chat.lectern = null;
  await lectern?.close();
  await stopLocalModel();
  const provider =
    settings.kind === 'local'
      ? await localModelProvider(localModel, { status: $('#model-label'), useCache: false })
      : { kind: settings.kind, baseUrl: settings.baseUrl, model: settings.model, stream: settings.stream, ...(apiKey ? { apiKey } : {}) };
  // Made-up prices for the mock, so the chat's cost readout shows something.
  if (settings === mockSettings) provider.prices = { mock: { inputPerMTok: 1, outputPerMTok: 4 } };
  lectern = await Lectern.open({ dbName: 'lectern-chat', provider, resolveMention, approvals: { tools: { save_note: 'ask' } } });
  registerTools(lectern);
  if (settings.kind !== 'local') {
    chat.settings = settings;
    $('#model-label').textContent = settings === mockSettings ? 'Using the mock model server (it echoes you)' : `Using ${settings.model} at ${settings.baseUrl}`;
  }
  // No conversation named: the widget shows the most recent one (clear() starts the next).
  chat.lectern = lectern;
  await chat.ready;
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
$('#new-conversation').addEventListener('click', () => chat.clear());

await init();
await safely(() => use(mockSettings));
