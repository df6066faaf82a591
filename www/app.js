// The demo page: one conversation with a streamed reply, a tool that asks the reader before it
// runs (the approval survives a reload), and model settings — a remote server, the mock, or a
// model running in this page (wllama through lectern/wllama) when the server offers one.
import init, { Lectern } from '/pkg/lectern.js';

const $ = (selector) => document.querySelector(selector);
const SETTINGS_KEY = 'lectern-demo-settings';
const CONVERSATION_KEY = 'lectern-demo-conversation';
const NOTES_KEY = 'lectern-demo-notes';

const serverConfig = await fetch('/config.json')
  .then((r) => (r.ok ? r.json() : {}))
  .catch(() => ({}));
const mockSettings = { kind: 'openai', baseUrl: serverConfig.mockBaseUrl ?? '', model: 'mock', apiKey: '', stream: true, mock: true };

// The in-browser model the server offers, if any (`npm start` fetches SmolLM2-135M-Instruct).
const localModel = serverConfig.localModel ?? null;
const localSettings = localModel && { kind: 'local', baseUrl: 'this page', model: localModel.name, stream: true };

function loadSettings() {
  const saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? 'null');
  // The mock server's port changes between runs: only custom settings are kept.
  if (saved?.kind === 'local') return localSettings ?? mockSettings;
  return saved && !saved.mock ? saved : mockSettings;
}

/** The running wllama, stopped when the settings change. */
let wllama = null;

/** A `custom` provider answering with the server's GGUF in this page; its load shows in the status line. */
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
      $('#status').textContent = phase === 'ready' ? `${localModel.name} is ready, in this page` : `Loading ${localModel.name}: ${phase}${share}`;
    },
  });
  return wllamaProvider(wllama, { model: localModel.name, ready, maxTokens: 200 });
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
  await wllama?.exit();
  wllama = null;
  const provider =
    settings.kind === 'local'
      ? await localProvider()
      : {
          kind: settings.kind ?? 'openai',
          baseUrl: settings.baseUrl,
          model: settings.model,
          stream: settings.stream,
          ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
        };
  lectern = await Lectern.open({
    dbName: 'lectern-demo',
    provider,
    onEvent,
    // save_note changes something of the reader's, so the reader approves each call.
    approvals: { tools: { save_note: 'ask' } },
  });
  lectern.registerTool({
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
    if ((message.role === 'user' || message.role === 'assistant') && message.content) addBubble(message.role, message.content);
  }
  // A turn paused for the reader's approval is in the database: show it again.
  for (const paused of await lectern.pendingApprovals(conversationId)) showApproval(paused.turnId, paused.calls);
}

function button(label, onClick) {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = label;
  element.addEventListener('click', onClick);
  return element;
}

/** A card asking the reader about each pending call: approve, run with edited arguments, or reject. */
function showApproval(turnId, calls) {
  const card = document.createElement('li');
  card.className = 'message approval';
  card.dataset.turnId = turnId;
  const heading = document.createElement('p');
  heading.textContent = calls.length === 1 ? 'The assistant asks to run:' : 'The assistant asks to run these:';
  const problem = document.createElement('p');
  problem.className = 'problem';
  card.append(heading);
  for (const call of calls) {
    const box = document.createElement('div');
    box.className = 'call';
    box.dataset.callId = call.callId;
    const name = document.createElement('strong');
    name.textContent = call.toolName;
    const args = document.createElement('textarea');
    args.className = 'arguments';
    args.rows = 4;
    args.value = JSON.stringify(call.arguments, null, 2);
    args.setAttribute('aria-label', `Arguments of ${call.toolName}`);
    const approve = button('Approve', () => decide(card, { callId: call.callId, decision: 'approve' }));
    const edit = button('Run my version', () => {
      let edited;
      try {
        edited = JSON.parse(args.value);
      } catch (error) {
        problem.textContent = `Not valid JSON: ${error.message}`;
        return;
      }
      decide(card, { callId: call.callId, decision: 'edit', arguments: edited });
    });
    edit.className = 'edit';
    const reject = button('Reject', () => decide(card, { callId: call.callId, decision: 'reject', reason: 'The reader declined' }));
    reject.className = 'reject';
    approve.className = 'approve';
    const actions = document.createElement('div');
    actions.className = 'buttons';
    actions.append(approve, edit, reject);
    box.append(name, args, actions);
    card.append(box);
  }
  card.append(problem);
  $('#log').append(card);
  card.scrollIntoView({ block: 'end' });
}

/** Sends one decision; the turn goes on (or asks about the next call). */
async function decide(card, decision) {
  const buttons = card.querySelectorAll('button');
  buttons.forEach((b) => (b.disabled = true));
  streamingBubble = addBubble('assistant');
  streamingBubble.parentElement.classList.add('streaming');
  const bubble = streamingBubble;
  try {
    const outcome = await lectern.resolveApprovals(card.dataset.turnId, [decision]);
    card.remove();
    showOutcome(outcome, bubble);
  } catch (error) {
    bubble.parentElement.remove();
    card.querySelector('.problem').textContent = `${error.name}: ${error.message}`;
    buttons.forEach((b) => (b.disabled = false));
  } finally {
    bubble.parentElement?.classList.remove('streaming');
    streamingBubble = null;
  }
}

/** Shows what a turn came to: an answer, or the calls waiting for the reader. */
function showOutcome(outcome, bubble) {
  if (outcome.status === 'awaitingApproval') {
    bubble.parentElement.remove();
    showApproval(outcome.turnId, outcome.pending);
  } else {
    bubble.textContent = outcome.text;
  }
}

async function send(text) {
  addBubble('user', text);
  streamingBubble = addBubble('assistant');
  streamingBubble.parentElement.classList.add('streaming');
  const bubble = streamingBubble;
  $('#send').disabled = true;
  try {
    showOutcome(await lectern.send(conversationId, text), bubble);
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
  if (settings.kind === 'local') return; // the form is for servers; the model in the page has no settings
  $('#kind').value = settings.kind ?? 'openai';
  $('#base-url').value = settings.baseUrl;
  $('#model').value = settings.model;
  $('#api-key').value = settings.apiKey ?? '';
  $('#stream').checked = settings.stream !== false;
}

/** What the status line says once Lectern is open with a server (the model in the page reports its load). */
function using() {
  return `Using ${settings.model} at ${settings.baseUrl}`;
}

async function applySettings(next) {
  settings = next;
  if (next.mock) localStorage.removeItem(SETTINGS_KEY);
  else localStorage.setItem(SETTINGS_KEY, JSON.stringify(next));
  fillSettingsForm();
  try {
    await openLectern();
    if (settings.kind !== 'local') $('#status').textContent = using();
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
if (localSettings) {
  $('#use-local').hidden = false;
  $('#use-local').addEventListener('click', () => applySettings(localSettings));
}
$('#new-conversation').addEventListener('click', () => showConversation(null));

await init();
fillSettingsForm();
try {
  await openLectern();
  await showConversation(localStorage.getItem(CONVERSATION_KEY));
  if (settings.kind !== 'local') $('#status').textContent = using();
  document.body.dataset.ready = 'true';
} catch (error) {
  $('#status').textContent = `${error.name}: ${error.message}`;
  $('#settings-panel').open = true;
}
