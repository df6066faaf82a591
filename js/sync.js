// lectern/sync: a reader's records on more than one device, through the sync server
// (scripts/sync-server.mjs: y-websocket's server, a room per user, a token checked at the
// upgrade). `SyncClient.open` loads the sync module (lectern_sync_bg.wasm: the document and its
// rules, docs/sync.md) and the user's document from IndexedDB, then connects; it reconnects after
// a dropped connection, keeps the document in IndexedDB after each change (a burst of them kept together), and tells `onChange`
// what a remote update changed. Writes made offline merge when it is back. `followSync(lectern,
// options)` keeps a Lectern's conversations in step with the document: what it stores goes to the
// document, what other devices wrote is stored in the document's order (issue 50).
import init, { SyncReplica } from './lectern_sync.js';

export { followSync, SyncFollower } from './lectern_sync_follow.js';

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
