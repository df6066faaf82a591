// lectern/sync: a reader's records on more than one device, through the sync server
// (scripts/sync-server.mjs: y-websocket's server, a room per user, a token checked at the
// upgrade). `SyncClient.open` loads the sync module (lectern_sync_bg.wasm: the document and its
// rules, docs/sync.md) and the user's document from IndexedDB, then connects; it reconnects after
// a dropped connection, keeps the document in IndexedDB after each change (a burst of them kept together), and tells `onChange`
// what a remote update changed. Writes made offline merge when it is back. `followSync(lectern,
// options)` keeps a Lectern's conversations in step with the document: what it stores goes to the
// document, what other devices wrote is stored in the document's order (issue 50).
import init, { SyncReplica } from './lectern_sync.js';

const DATABASE = 'lectern-sync';
const STORE = 'documents';

/** Reconnection delays (ms): doubled from the first to the last, then the last again. */
const RETRY_FIRST_MS = 250;
const RETRY_LAST_MS = 4000;

/** A request's result, as a promise. */
const done = (request) => new Promise((resolve, reject) => {
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});

async function database() {
  const request = indexedDB.open(DATABASE, 1);
  request.onupgradeneeded = () => request.result.createObjectStore(STORE);
  return done(request);
}

/** One user's synced document on this device. */
export class SyncClient {
  /**
   * Opens the user's document (from IndexedDB when this device kept one) and connects to `url`
   * (`ws://host:port`, the server's origin) as `user` with `token`. `device` names this device
   * in what it writes (default: one made and kept in localStorage). `onChange(changes)` hears
   * each remote update's `{ conversations, positions, calls }` (ids); `onStatus(status)` hears
   * `'connecting'`, `'online'` and `'offline'`.
   */
  static async open({ url, user, token, device, onChange, onStatus }) {
    await init({ module_or_path: new URL('./lectern_sync_bg.wasm', import.meta.url) });
    const db = await database();
    const key = `${url}|${user}`;
    const kept = await done(db.transaction(STORE).objectStore(STORE).get(key));
    device ??= deviceId();
    const replica = new SyncReplica(device, kept ? new Uint8Array(kept) : undefined);
    const client = new SyncClient({ url, user, token, device, onChange, onStatus, db, key, replica });
    client.connect();
    return client;
  }

  constructor({ url, user, token, device, onChange, onStatus, db, key, replica }) {
    Object.assign(this, { url, user, token, device, onChange, onStatus, db, key, replica });
    this.socket = null;
    this.status = 'offline';
    this.retryMs = RETRY_FIRST_MS;
    this.wanted = false;
    this.closed = false;
    this.keeping = null; // the write under way, if any
    this.unkept = false; // a change since the last snapshot taken
  }

  /** Connects (again) and keeps reconnecting until `disconnect()`. */
  connect() {
    if (this.closed || this.socket) return;
    this.wanted = true;
    this.#setStatus('connecting');
    const socket = new WebSocket(`${this.url}/sync/${encodeURIComponent(this.user)}?token=${encodeURIComponent(this.token)}`);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onopen = () => {
      this.retryMs = RETRY_FIRST_MS;
      this.replica.connected();
      this.#setStatus('online');
      this.#flush();
    };
    socket.onmessage = ({ data }) => {
      if (!(data instanceof ArrayBuffer)) return;
      let changes;
      try {
        changes = JSON.parse(this.replica.receive(new Uint8Array(data)));
      } catch (error) {
        // A frame the document's rules refuse changes nothing; the connection goes on.
        console.warn(`lectern/sync: ${error.message}`);
        return;
      }
      this.#flush();
      if (changes.conversations.length || changes.positions.length || changes.calls.length) {
        this.#keepLater();
        this.onChange?.(changes);
      }
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.replica.disconnected();
      this.#setStatus('offline');
      if (this.wanted && !this.closed) {
        setTimeout(() => this.connect(), this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, RETRY_LAST_MS);
      }
    };
  }

  /** Closes the connection and stops reconnecting (writes go on, and are sent at `connect()`). */
  disconnect() {
    this.wanted = false;
    const socket = this.socket;
    this.socket = null;
    this.replica.disconnected();
    socket?.close();
    this.#setStatus('offline');
  }

  /** Adds or renames a conversation (a stored conversation: `{ id, title, createdAt, … }`). */
  putConversation(conversation) {
    this.replica.putConversation(JSON.stringify(conversation));
    this.#wrote();
  }

  /** Appends a message (a stored message: `{ id, conversationId, role, content, createdAt, … }`); written once. */
  appendMessage(message) {
    this.replica.appendMessage(JSON.stringify({ seq: 0, ...message }));
    this.#wrote();
  }

  /** Sets the reader's page in `bookId`. */
  setPosition(bookId, page) {
    this.replica.setPosition(bookId, page, Date.now());
    this.#wrote();
  }

  /**
   * Records call `callId` of a turn paused on this device (its owner: the only device that runs
   * it) as waiting for a person; `arguments` as JSON text. One already recorded is left as it is.
   * Returns its key (`<turnId>:<callId>`: a provider's call ids repeat across turns), which
   * `decide` and `calls()` name it by.
   */
  addCall({ callId, conversationId, turnId, name, arguments: args }) {
    const key = this.replica.addCall(callId, conversationId, turnId, name, args);
    this.#wrote();
    return key;
  }

  /** This device's decision on the call of key `id`: `{ decision: 'approve' | 'edit' | 'reject', arguments?, reason? }`. */
  decide(id, decision) {
    this.replica.decide(id, JSON.stringify(decision));
    this.#wrote();
  }

  /** Every recorded call: `{ id (its key), callId, conversationId, turnId, name, arguments, owner, decision, done }`. */
  calls() {
    return JSON.parse(this.replica.calls());
  }

  /** The calls this device may run now: its own, decided, nothing recorded of them yet. */
  callsToRun() {
    return JSON.parse(this.replica.callsToRun());
  }

  /** What came of a call this device ran (its stored tool-call record), recorded once. */
  recordResult(record) {
    this.replica.recordResult(JSON.stringify(record));
    this.#wrote();
  }

  /** Every conversation. */
  conversations() {
    return JSON.parse(this.replica.conversations());
  }

  /** A conversation's messages, in the order every device shows. */
  messages(conversationId) {
    return JSON.parse(this.replica.messages(conversationId));
  }

  /** The reader's place in `bookId` (`{ page, updatedAt, device }`), or null. */
  position(bookId) {
    const json = this.replica.position(bookId);
    return json === undefined ? null : JSON.parse(json);
  }

  /** Every book's place: `{ [bookId]: { page, updatedAt, device } }`. */
  positions() {
    return JSON.parse(this.replica.positions());
  }

  /** Disconnects for good and waits until the document is kept. */
  async close() {
    this.disconnect();
    this.closed = true;
    await this.#keep();
  }

  #wrote() {
    this.#flush();
    this.#keepLater();
  }

  /** `#keep()` without waiting: a failed write is logged (the next change tries again). */
  #keepLater() {
    this.#keep().catch((error) => console.warn(`lectern/sync: the document was not kept: ${error.message}`));
  }

  /** Sends the queued frames while the socket is open (else they are dropped: see SyncReplica). */
  #flush() {
    const open = this.socket?.readyState === WebSocket.OPEN;
    for (let frame = this.replica.nextFrame(); frame; frame = this.replica.nextFrame()) {
      if (open) this.socket.send(frame);
    }
  }

  /**
   * Keeps the document in IndexedDB, changes made together kept together: the snapshot is taken
   * once the current task's changes are made (a burst of writes is one write, not one each), and
   * once more after a write under way if changes came meanwhile. Resolves once it is kept.
   */
  #keep() {
    this.unkept = true;
    this.keeping ??= (async () => {
      await Promise.resolve();
      while (this.unkept) {
        this.unkept = false;
        await this.#write(this.replica.snapshot());
      }
    })().finally(() => (this.keeping = null));
    return this.keeping;
  }

  /** Puts `snapshot` in IndexedDB; resolves once the transaction is done. */
  #write(snapshot) {
    const transaction = this.db.transaction(STORE, 'readwrite');
    transaction.objectStore(STORE).put(snapshot.buffer, this.key);
    return new Promise((resolve, reject) => {
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error);
    });
  }

  #setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.onStatus?.(status);
  }
}

/** This browser's device id, made once and kept in localStorage. */
function deviceId() {
  const stored = globalThis.localStorage?.getItem('lectern-sync-device');
  if (stored) return stored;
  const made = crypto.randomUUID();
  globalThis.localStorage?.setItem('lectern-sync-device', made);
  return made;
}

/** A synced decision (`{ decision: 'approved' | 'edited' | 'rejected', … }`) as `resolveApprovals` takes it. */
function approvalDecision(callId, { decision, arguments: args, reason }) {
  if (decision === 'approved') return { callId, decision: 'approve' };
  if (decision === 'edited') return { callId, decision: 'edit', arguments: args };
  return reason ? { callId, decision: 'reject', reason } : { callId, decision: 'reject' };
}

/** The events after which a conversation's stored records changed on this device. */
const STORED = new Set(['stepFinish', 'approvalRequested', 'finish', 'error', 'workingState']);

/**
 * Keeps `lectern`'s conversations in step with the user's synced document: what this device
 * stores is written to the document after each step of a turn; what other devices wrote is
 * stored here, each conversation's messages in the document's order (the same on every device).
 * Opens the `SyncClient` of `options` (`url`, `user`, `token`, `device`, `onStatus`);
 * `onSynced({ conversationId })` hears each conversation a remote change rewrote here.
 */
export async function followSync(lectern, { onSynced, ...options }) {
  const follower = new SyncFollower(lectern, onSynced);
  follower.client = await SyncClient.open({
    ...options,
    onChange: (changes) => {
      follower.pullEach(changes.conversations);
      if (changes.positions.length) follower.turnPages(changes.positions);
      if (changes.calls.length) follower.runDecided();
    },
  });
  follower.start();
  await follower.settled();
  return follower;
}

/** A Lectern following a synced document (`followSync`). */
export class SyncFollower {
  constructor(lectern, onSynced) {
    Object.assign(this, { lectern, onSynced, client: null });
    this.queue = Promise.resolve();
    this.unsubscribe = null;
  }

  /** Writes every stored conversation to the document, stores the document's, then follows both. */
  start() {
    this.unsubscribe = this.lectern.subscribe((event) => {
      if (event.remote || !event.conversationId) return;
      if (event.type === 'approvalRequested') this.#recordCalls(event);
      if (STORED.has(event.type)) this.pushEach([event.conversationId]);
    });
    this.#then(async () => {
      const local = (await this.lectern.conversations()).map((c) => c.id);
      for (const id of local) await this.#push(id);
      for (const c of this.client.conversations()) await this.#pull(c.id);
      await this.#turnPages(Object.keys(this.client.positions()));
      await this.#runDecided();
    });
  }

  /** Sets the reader's page in `bookId` here (`setCurrentPage`) and in the document, for every device. */
  async setCurrentPage(bookId, page) {
    const book = await this.lectern.setCurrentPage(bookId, page);
    this.client.setPosition(bookId, book.currentPage);
    return book;
  }

  /** Turns these books here to the page the document has for them (in turn with the rest). */
  turnPages(bookIds) {
    this.#then(() => this.#turnPages(bookIds));
  }

  /** Resolves this device's paused turns whose every call some device decided (in turn with the rest). */
  runDecided() {
    this.#then(() => this.#runDecided());
  }

  /** Writes these conversations' stored records to the document (in turn with the rest). */
  pushEach(ids) {
    this.#then(async () => {
      for (const id of ids) await this.#push(id);
    });
  }

  /** Stores these conversations as the document has them (in turn with the rest). */
  pullEach(ids) {
    this.#then(async () => {
      for (const id of ids) await this.#pull(id);
    });
  }

  /** Resolves when every write queued so far is done. */
  settled() {
    return this.queue;
  }

  /** Stops following and closes the connection, once the document is kept. */
  async close() {
    this.unsubscribe?.();
    await this.settled();
    await this.client.close();
  }

  #then(work) {
    this.queue = this.queue.then(work).catch((error) => console.warn(`lectern/sync: ${error.message}`));
  }

  async #push(id) {
    let bundle;
    try {
      bundle = await this.lectern.exportConversation(id);
    } catch (error) {
      if (error.name === 'NotFoundError') return;
      throw error;
    }
    const { conversation, messages } = bundle;
    // The whole record (its working state too): a device that stored it differently takes it as is.
    this.client.putConversation(conversation);
    const known = new Set(this.client.messages(id).map((m) => m.id));
    for (const message of messages) if (!known.has(message.id)) this.client.appendMessage(message);
    const open = new Set(this.client.calls().filter((c) => !c.done && c.owner === this.client.device).map((c) => c.id));
    for (const record of bundle.toolCalls) if (open.has(`${record.turnId}:${record.id}`)) this.client.recordResult(record);
  }

  /**
   * Turns each of these books that is in this library to the document's page (the books module
   * loads only when there is a page to set: a chat without books never downloads it).
   */
  async #turnPages(bookIds) {
    const positions = this.client.positions();
    const wanted = bookIds.filter((id) => positions[id]);
    if (!wanted.length) return;
    const books = await this.lectern.books();
    for (const id of wanted) {
      const book = books.find((b) => b.id === id);
      const { page } = positions[id];
      if (!book || book.currentPage === page || page > book.pageCount) continue;
      await this.lectern.setCurrentPage(id, page);
      this.onSynced?.({ bookId: id, page });
    }
  }

  /** Records the calls of a turn paused here, for any device to decide. */
  #recordCalls({ conversationId, turnId, calls }) {
    for (const call of calls) {
      const args = JSON.stringify(call.arguments);
      this.client.addCall({ callId: call.callId, conversationId, turnId, name: call.toolName, arguments: args });
    }
  }

  /**
   * Goes on with each turn paused here whose calls are all decided in the document: the decisions
   * are this device's `resolveApprovals` (which runs a turn's calls once, whatever asks again), and
   * what came of each call is recorded for the other devices.
   */
  async #runDecided() {
    const ready = this.client.callsToRun();
    const turns = new Set(ready.map((c) => c.turnId));
    for (const turnId of turns) {
      const call = ready.find((c) => c.turnId === turnId);
      const pending = (await this.lectern.pendingApprovals(call.conversationId)).find((t) => t.turnId === turnId);
      if (pending) {
        const decided = new Map(ready.filter((c) => c.turnId === turnId).map((c) => [c.callId, c.decision]));
        if (!pending.calls.every((c) => decided.has(c.callId))) continue;
        const decisions = pending.calls.map((c) => approvalDecision(c.callId, decided.get(c.callId)));
        await this.lectern.resolveApprovals(turnId, decisions).catch((error) => {
          if (error.name !== 'AlreadyResolvedError') throw error;
        });
      }
      await this.#push(call.conversationId);
    }
  }

  async #pull(id) {
    const conversation = this.client.conversations().find((c) => c.id === id);
    if (!conversation) return;
    const synced = this.client.messages(id);
    const changed = await this.lectern.mergeSyncedConversation(conversation, synced);
    if (changed) this.onSynced?.({ conversationId: id });
  }
}
