// followSync (lectern/sync): Lectern's store following the user's synced document. Two browser
// contexts (separate storage) as a laptop and a phone, each with Lectern open on a model of its
// own (a custom function), and the real sync server (scripts/sync-server.mjs) on 127.0.0.1. A
// conversation begun on the laptop goes on on the phone; the phone goes offline and both go on;
// it reconnects: every message stored on both, in the same order, none twice, and the phone's
// next turn sends the model the laptop's messages. A reload keeps the order; a tablet joining late
// stores everything. A call paused on one device, decided on another, runs once on its own; a
// hostile update from another client of the room changes nothing stored. Skips without the
// server's packages (npm ci).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skip, syncServerAndBrowser } from './sync/server.mjs';

const USER = 'reader-2';
const state = syncServerAndBrowser(USER);

/**
 * Opens Lectern on this page (a model that echoes the last user message and keeps every request
 * in `window.requests`) and follows the document as device `name`: `window.lectern`, `window.follower`.
 */
async function follow(page, name) {
  await page.evaluate(
    async ({ url, user, token, name }) => {
      const { default: init, Lectern } = await import('/pkg/lectern.js');
      const { followSync } = await import('/pkg/lectern_sync_client.js');
      await init();
      window.requests = [];
      // Asked to save, it calls save_note (a tool that asks for approval); after a tool's result,
      // it says so; else it echoes the last user message.
      const call = async (request) => {
        window.requests.push(request);
        const last = request.messages.at(-1);
        const reply = (message, finish = 'stop') => ({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }] });
        if (last.role === 'tool') return reply({ role: 'assistant', content: `${name} ran it: ${last.content}` });
        if (last.content.startsWith('Save')) {
          // The same call id every turn, as Lectern names the calls of a provider that gives none.
          const toolCall = { id: 'call_0', type: 'function', function: { name: 'save_note', arguments: JSON.stringify({ text: last.content }) } };
          return reply({ role: 'assistant', content: null, tool_calls: [toolCall] }, 'tool_calls');
        }
        return reply({ role: 'assistant', content: `${name} heard: ${last.content}` });
      };
      window.lectern = await Lectern.open({ dbName: 'follow', provider: { kind: 'custom', model: 'echo', stream: false, call } });
      // What lectern/sync warns of (a refused update), kept for the test in every engine.
      window.warnings = [];
      const warn = console.warn.bind(console);
      console.warn = (...args) => {
        window.warnings.push(args.join(' '));
        warn(...args);
      };
      window.runs = [];
      window.lectern.registerTool({
        name: 'save_note',
        description: 'Saves a note',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        async execute({ text }) {
          window.runs.push(text);
          return `saved on ${name}`;
        },
      });
      window.synced = 0;
      window.follower = await followSync(window.lectern, { url, user, token, device: name, onSynced: () => (window.synced += 1) });
    },
    { url: `ws://127.0.0.1:${state.port}`, user: USER, token: state.token, name },
  );
}

/** A device: a page of its own browser context, following the document. */
async function device(name) {
  const context = await state.browser.newContext();
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'warning' || m.type() === 'error') console.log(`${name}: ${m.text()}`);
  });
  await page.goto(`${state.site.url}tests/js/sync/page.html`);
  await follow(page, name);
  return { context, page, name };
}

/** Sends `text` in conversation `id` on device `d` and waits for the turn. */
const send = (d, id, text) => d.page.evaluate(async ({ id, text }) => {
  await window.lectern.send(id, text);
  await window.follower.settled();
}, { id, text });

/** The ids and texts of conversation `id` as `d` stores it, in order ([] when it has none). */
const stored = (d, id) => d.page.evaluate(async (id) => {
  const conversations = await window.lectern.conversations();
  if (!conversations.some((c) => c.id === id)) return [];
  const { messages } = await window.lectern.exportConversation(id);
  return messages.map((m) => ({ id: m.id, seq: m.seq, content: m.content }));
}, id);

/** Waits until `d` stores `count` messages of conversation `id`. */
async function holds(d, id, count) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const messages = await stored(d, id);
    if (messages.length === count) return messages;
    if (Date.now() > deadline) assert.fail(`${d.name} stores ${messages.length} messages of ${id}, not ${count}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('two devices following one document store the same conversation in the same order', { skip }, async () => {
  const laptop = await device('laptop');
  const phone = await device('phone');
  const id = await laptop.page.evaluate(async () => (await window.lectern.createConversation({ title: 'Thursday' })).id);
  await send(laptop, id, 'Who is Syme?');
  await holds(phone, id, 2);
  await send(phone, id, 'And Gregory?');
  await holds(laptop, id, 4);

  // The phone goes offline; both go on.
  await phone.page.evaluate(() => window.follower.client.disconnect());
  await send(laptop, id, 'laptop, online');
  await send(phone, id, 'phone, offline');
  assert.equal((await stored(phone, id)).length, 6, 'the phone stores its own turn while offline');
  await phone.page.evaluate(() => window.follower.client.connect());
  const order = await holds(laptop, id, 8);
  await holds(phone, id, 8);
  assert.deepEqual(await stored(phone, id), order, 'the same messages in the same order, numbered alike');
  assert.equal(new Set(order.map((m) => m.id)).size, 8, 'none twice');
  assert.deepEqual(order.map((m) => m.seq), [0, 1, 2, 3, 4, 5, 6, 7]);

  // The phone's next turn sends its model the laptop's messages, in the document's order.
  await send(phone, id, 'What now?');
  const sent = await phone.page.evaluate(() => window.requests.at(-1).messages.filter((m) => m.role !== 'system').map((m) => m.content));
  assert.deepEqual(sent.slice(0, 8), order.map((m) => m.content));
  await holds(laptop, id, 10);

  // A reload keeps the order; nothing is stored twice.
  await phone.page.reload();
  await follow(phone.page, 'phone');
  assert.deepEqual(await stored(phone, id), await stored(laptop, id));

  // A tablet joining late stores everything.
  const tablet = await device('tablet');
  const all = await holds(tablet, id, 10);
  assert.deepEqual(all, await stored(laptop, id));
  assert.ok(await tablet.page.evaluate(() => window.synced) >= 1, 'onSynced heard the conversation');
  for (const d of [laptop, phone, tablet]) await d.context.close();
});

/** Waits until `check()` (run in `d`'s page) is true. */
const until = (d, check, arg) => d.page.waitForFunction(check, arg, { polling: 100, timeout: 15_000 });

test('a call paused on one device is approved on another and runs once, on its owner only', { skip }, async () => {
  const laptop = await device('laptop');
  const phone = await device('phone');
  const id = await laptop.page.evaluate(async () => (await window.lectern.createConversation({ title: 'Notes' })).id);
  const outcome = await laptop.page.evaluate(async (id) => {
    const { status } = await window.lectern.send(id, 'Save chapter three');
    await window.follower.settled();
    return status;
  }, id);
  assert.equal(outcome, 'awaitingApproval');

  // The phone sees the call waiting, undecided, owned by the laptop; it approves it.
  await until(phone, () => window.follower.client.calls().length === 1);
  const [call] = await phone.page.evaluate(() => window.follower.client.calls());
  assert.equal(call.owner, 'laptop');
  assert.deepEqual(call.decision, { decision: 'undecided' });
  assert.equal(call.name, 'save_note');
  await phone.page.evaluate((callId) => window.follower.client.decide(callId, { decision: 'approve' }), call.id);

  // The laptop (the owner) runs it once and goes on; the phone stores the whole turn and ran nothing.
  await until(laptop, () => window.runs.length === 1);
  const turn = await holds(phone, id, 4);
  assert.deepEqual(turn.map((m) => m.content).slice(-2), ['saved on laptop', 'laptop ran it: saved on laptop']);
  await until(phone, (callId) => window.follower.client.calls().find((c) => c.id === callId)?.done, call.id);
  assert.deepEqual(await phone.page.evaluate(() => window.runs), []);

  // More decisions, and a late device deciding too, run nothing again.
  await phone.page.evaluate((callId) => window.follower.client.decide(callId, { decision: 'approve' }), call.id);
  const tablet = await device('tablet');
  await holds(tablet, id, 4);
  await tablet.page.evaluate((callId) => window.follower.client.decide(callId, { decision: 'approve' }), call.id);
  await laptop.page.evaluate(async () => {
    await new Promise((r) => setTimeout(r, 1000));
    await window.follower.settled();
  });
  assert.deepEqual(await laptop.page.evaluate(() => window.runs), ['Save chapter three']);
  assert.deepEqual(await tablet.page.evaluate(() => window.runs), []);
  assert.equal((await stored(laptop, id)).length, 4, 'no second turn');

  // The next turn's call has the same provider id: it is a call of its own, decided and run once.
  await laptop.page.evaluate(async (id) => {
    await window.lectern.send(id, 'Save chapter four');
    await window.follower.settled();
  }, id);
  await until(tablet, () => window.follower.client.calls().some((c) => c.decision.decision === 'undecided'));
  const next = await tablet.page.evaluate(() => window.follower.client.calls().find((c) => c.decision.decision === 'undecided'));
  assert.equal(next.callId, call.callId);
  assert.notEqual(next.id, call.id);
  await tablet.page.evaluate((key) => window.follower.client.decide(key, { decision: 'approve' }), next.id);
  await until(laptop, () => window.runs.length === 2);
  await holds(phone, id, 8);
  assert.deepEqual(await laptop.page.evaluate(() => window.runs), ['Save chapter three', 'Save chapter four']);
  for (const d of [laptop, phone, tablet]) await d.context.close();
});

/**
 * Another client of the user's room (the token leaked, or a device gone bad): it takes the room's
 * document from the server (y-protocols' sync over y-websocket's framing, as Yjs clients speak
 * it), then sends `forge(doc)`'s change as an update the server relays to every device.
 */
async function hostileClient(forge) {
  const [Y, sync, encoding, decoding, { WebSocket }] = await Promise.all([
    import('yjs'),
    import('y-protocols/sync'),
    import('lib0/encoding'),
    import('lib0/decoding'),
    import('ws'),
  ]);
  const doc = new Y.Doc();
  const socket = new WebSocket(`ws://127.0.0.1:${state.port}/sync/${USER}?token=${encodeURIComponent(state.token)}`);
  const frame = (write) => {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 0); // y-websocket's sync message
    write(encoder);
    return encoding.toUint8Array(encoder);
  };
  const synced = new Promise((resolve) => {
    socket.on('message', (data) => {
      const decoder = decoding.createDecoder(new Uint8Array(data));
      if (decoding.readVarUint(decoder) !== 0) return; // awareness
      const reply = encoding.createEncoder();
      encoding.writeVarUint(reply, 0);
      if (sync.readSyncMessage(decoder, reply, doc, null) === sync.messageYjsSyncStep2) resolve();
      if (encoding.length(reply) > 1) socket.send(encoding.toUint8Array(reply));
    });
  });
  await new Promise((resolve) => socket.on('open', resolve));
  socket.send(frame((encoder) => sync.writeSyncStep1(encoder, doc)));
  await synced;
  doc.on('update', (update) => socket.send(frame((encoder) => sync.writeUpdate(encoder, update))));
  forge(doc);
  await new Promise((r) => setTimeout(r, 500));
  socket.close();
}

test('a hostile update through the server changes nothing a device stores', { skip }, async () => {
  const laptop = await device('laptop');
  const phone = await device('phone');
  const id = await laptop.page.evaluate(async () => (await window.lectern.createConversation({ title: 'Kept' })).id);
  await send(laptop, id, 'What was said');
  const before = await holds(phone, id, 2);
  const [first] = before;

  // It rewrites the first message.
  await hostileClient((doc) => {
    doc.transact(() => {
      const stored = JSON.parse(doc.getMap('messages').get(first.id));
      doc.getMap('messages').set(first.id, JSON.stringify({ ...stored, content: 'forged' }));
    });
  });
  await new Promise((r) => setTimeout(r, 1000));
  assert.deepEqual(await stored(phone, id), before, 'the phone stores what it had');
  assert.deepEqual(await stored(laptop, id), before, 'so does the laptop');
  const warnings = await phone.page.evaluate(() => window.warnings);
  assert.ok(warnings.some((w) => /rewritten/.test(w)), `the phone refused it: ${warnings.join(' | ')}`);
  const doc = await phone.page.evaluate((id) => window.follower.client.messages(id).map((m) => m.content), id);
  assert.deepEqual(doc, before.map((m) => m.content), 'and its document holds what it had');
  for (const d of [laptop, phone]) await d.context.close();
});
