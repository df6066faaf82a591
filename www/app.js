// The demo page: one conversation with a streamed reply, and model settings.
import init, { Lectern } from '/pkg/lectern.js';

const $ = (selector) => document.querySelector(selector);
const SETTINGS_KEY = 'lectern-demo-settings';
const CONVERSATION_KEY = 'lectern-demo-conversation';

const serverConfig = await fetch('/config.json')
  .then((r) => (r.ok ? r.json() : {}))
  .catch(() => ({}));
const mockSettings = { kind: 'openai', baseUrl: serverConfig.mockBaseUrl ?? '', model: 'mock', apiKey: '', stream: true, mock: true };

function loadSettings() {
  const saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? 'null');
  // The mock server's port changes between runs: only custom settings are kept.
  return saved && !saved.mock ? saved : mockSettings;
}

let settings = loadSettings();
let lectern = null;
let conversationId = null;
let streamingBubble = null;

function addBubble(role, text = '') {
  const item = document.createElement('li');
  item.className = `message ${role}`;
  item.dataset.role = role;
  const body = document.createElement('div');
  body.className = 'body';
  body.textContent = text;
  item.append(body);
  $('#log').append(item);
  item.scrollIntoView({ block: 'end' });
  return body;
}

function onEvent(event) {
  if (event.type === 'toolInvocation') {
    const line = addBubble('tool', `Using ${event.toolName}…`);
    line.parentElement.dataset.callId = event.callId;
    // Keep the streaming answer below the tool lines.
    if (streamingBubble) $('#log').append(streamingBubble.parentElement);
  } else if (event.type === 'toolResult') {
    const item = document.querySelector(`#log [data-call-id="${CSS.escape(event.callId)}"] .body`);
    if (item) item.textContent = event.error ? `${event.toolName} failed: ${event.error}` : `Used ${event.toolName}`;
  } else if (event.type === 'textDelta' && streamingBubble) {
    streamingBubble.textContent += event.text;
    streamingBubble.parentElement.scrollIntoView({ block: 'end' });
  } else if (event.type === 'tokenUsage') {
    $('#status').textContent = `${event.inputTokens} tokens in, ${event.outputTokens} out`;
  }
}

async function openLectern() {
  if (lectern) await lectern.close();
  const provider = {
    kind: settings.kind ?? 'openai',
    baseUrl: settings.baseUrl,
    model: settings.model,
    stream: settings.stream,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  };
  lectern = await Lectern.open({ dbName: 'lectern-demo', provider, onEvent });
  lectern.registerTool({
    name: 'local_time',
    description: "The reader's local date, time and time zone",
    parameters: { type: 'object', properties: {} },
    execute: () => ({
      now: new Date().toString(),
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    }),
  });
}

async function showConversation(id) {
  const conversations = await lectern.conversations();
  let conversation = conversations.find((c) => c.id === id);
  if (!conversation) conversation = await lectern.createConversation({ title: 'Demo conversation' });
  conversationId = conversation.id;
  localStorage.setItem(CONVERSATION_KEY, conversationId);
  $('#conversation-title').textContent = conversation.title;
  $('#log').replaceChildren();
  for (const message of await lectern.messages(conversationId)) {
    if (message.role === 'user' || message.role === 'assistant') addBubble(message.role, message.content);
  }
}

async function send(text) {
  addBubble('user', text);
  streamingBubble = addBubble('assistant');
  streamingBubble.parentElement.classList.add('streaming');
  const bubble = streamingBubble;
  $('#send').disabled = true;
  try {
    const reply = await lectern.send(conversationId, text);
    bubble.textContent = reply.text;
  } catch (error) {
    bubble.parentElement.classList.add('error');
    bubble.textContent = `${error.name}: ${error.message}`;
  } finally {
    bubble.parentElement.classList.remove('streaming');
    streamingBubble = null;
    $('#send').disabled = false;
    $('#message').focus();
  }
}

function fillSettingsForm() {
  $('#kind').value = settings.kind ?? 'openai';
  $('#base-url').value = settings.baseUrl;
  $('#model').value = settings.model;
  $('#api-key').value = settings.apiKey ?? '';
  $('#stream').checked = settings.stream !== false;
}

async function applySettings(next) {
  settings = next;
  if (next.mock) localStorage.removeItem(SETTINGS_KEY);
  else localStorage.setItem(SETTINGS_KEY, JSON.stringify(next));
  fillSettingsForm();
  try {
    await openLectern();
    $('#status').textContent = `Using ${settings.model} at ${settings.baseUrl}`;
  } catch (error) {
    $('#status').textContent = `${error.name}: ${error.message}`;
  }
}

$('#composer').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('#message').value.trim();
  if (!text || $('#send').disabled) return;
  $('#message').value = '';
  send(text);
});
$('#message').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    $('#composer').requestSubmit();
  }
});
$('#settings').addEventListener('submit', (event) => {
  event.preventDefault();
  applySettings({
    kind: $('#kind').value,
    baseUrl: $('#base-url').value.trim(),
    model: $('#model').value.trim(),
    apiKey: $('#api-key').value,
    stream: $('#stream').checked,
    mock: false,
  });
});
$('#use-mock').addEventListener('click', () => applySettings(mockSettings));
$('#new-conversation').addEventListener('click', () => showConversation(null));

await init();
fillSettingsForm();
try {
  await openLectern();
  await showConversation(localStorage.getItem(CONVERSATION_KEY));
  $('#status').textContent = `Using ${settings.model} at ${settings.baseUrl}`;
  document.body.dataset.ready = 'true';
} catch (error) {
  $('#status').textContent = `${error.name}: ${error.message}`;
  $('#settings-panel').open = true;
}
