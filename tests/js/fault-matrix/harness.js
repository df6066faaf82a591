// The fault matrix's page: drives the built package through its public API
// and hands the test plain data (errors as `{ name, message, ...fields }`).
// Every tool counts its runs by `tool:tag` in localStorage, which tabs of one
// origin share and a closed page leaves behind.
import init, { Lectern } from '/pkg/lectern.js';

await init();

/** Open instances by the name the test gave them: `{ lectern, events }`. */
const instances = new Map();

const TAGGED = {
  type: 'object',
  properties: { tag: { type: 'string' } },
  required: ['tag'],
  additionalProperties: false,
};

/** `length` hex digits that no storage engine can compress. */
function randomText(length) {
  const bytes = new Uint8Array(length / 2);
  for (let i = 0; i < bytes.length; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function countRun(counter, tool, tag) {
  const runs = JSON.parse(localStorage.getItem(counter) ?? '{}');
  const key = `${tool}:${tag}`;
  runs[key] = (runs[key] ?? 0) + 1;
  localStorage.setItem(counter, JSON.stringify(runs));
}

/** How often each tool call ran, `{ 'tool:tag': n }`. */
export function runs(counter) {
  return JSON.parse(localStorage.getItem(counter) ?? '{}');
}

/** The tools every instance offers; each counts a run before doing anything else. */
function tools(counter) {
  const counted = (name, description, body, extra = {}) => ({
    name,
    description,
    parameters: TAGGED,
    ...extra,
    async execute(args, ctx) {
      countRun(counter, name, args.tag);
      return body(args, ctx);
    },
  });
  return [
    counted('probe', 'Answers ok', ({ tag }) => ({ ok: tag })),
    counted('explode', 'Always throws', () => {
      throw new Error('boom: the tool exploded');
    }),
    counted('stall', 'Answers only when aborted', (_, ctx) => new Promise((done) => ctx.signal.addEventListener('abort', () => done('aborted'))), {
      timeoutMs: 300,
    }),
    counted('bulky', 'Returns two megabytes that do not compress', () => randomText(2_000_000)),
  ];
}

function plainError(error) {
  if (!(error instanceof Error)) return { name: `not an Error (${typeof error})`, message: String(error) };
  return JSON.parse(JSON.stringify({ ...error, name: error.name, message: error.message }));
}

async function settle(promise) {
  try {
    return { value: await promise };
  } catch (error) {
    return { error: plainError(error) };
  }
}

function get(name) {
  const instance = instances.get(name);
  if (!instance) throw new Error(`no instance ${name}`);
  return instance;
}

/** Opens an instance `name` with the counting tools registered; options as for `Lectern.open`, plus `counter`. */
export async function open(name, { counter, ...options }) {
  const events = [];
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  // The matrix is about faults: its tools run unasked unless a case sets approvals.
  const lectern = await Lectern.open({ approvals: { default: 'auto' }, ...defined, onEvent: (ev) => events.push(ev) });
  for (const tool of tools(counter)) lectern.registerTool(tool);
  instances.set(name, { lectern, events });
}

/** A new conversation's id. */
export async function createConversation(name) {
  return (await get(name).lectern.createConversation({ title: 'fault matrix' })).id;
}

/** `send`, settled: `{ value }` or `{ error }`. */
export function send(name, conversationId, text) {
  return settle(get(name).lectern.send(conversationId, text));
}

/** Starts a `send` without waiting for it; `settled(name)` waits for it later. */
export function startSend(name, conversationId, text) {
  get(name).pending = send(name, conversationId, text);
}

/** The outcome of the send `startSend` began. */
export function settled(name) {
  return get(name).pending;
}

/** Whether the instance has seen a `textDelta` yet. */
export function sawTextDelta(name) {
  return get(name).events.some((ev) => ev.type === 'textDelta');
}

/** Sends, and closes the database as soon as the first text delta arrives. */
export async function sendClosingMidStream(name, conversationId, text) {
  let settledYet = false;
  const outcome = send(name, conversationId, text).finally(() => (settledYet = true));
  while (!sawTextDelta(name) && !settledYet) await new Promise((done) => setTimeout(done, 5));
  await get(name).lectern.close();
  return outcome;
}

/** `resolveApprovals`, settled. */
export function resolveApprovals(name, turnId, decisions) {
  return settle(get(name).lectern.resolveApprovals(turnId, decisions));
}

/** Closes an instance's database. */
export async function close(name) {
  await get(name).lectern.close();
  instances.delete(name);
}

/** What the database holds for a conversation, read by a freshly opened instance. */
export async function stored(dbName, conversationId) {
  const provider = { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'none', apiKey: 'k' };
  const lectern = await Lectern.open({ dbName, provider });
  try {
    const messages = await lectern.messages(conversationId);
    const toolCalls = await lectern.toolCalls(conversationId);
    return { messages, toolCalls };
  } finally {
    await lectern.close();
  }
}
