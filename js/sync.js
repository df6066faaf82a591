// lectern/sync: a reader's records on more than one device, through the sync server
// (scripts/sync-server.mjs: y-websocket's server, a room per user, a token checked at the
// upgrade). `SyncClient.open` loads the sync module (lectern_sync_bg.wasm: the document and its
// rules, docs/sync.md) and the user's document from IndexedDB, then connects; it reconnects after
// a dropped connection, keeps the document in IndexedDB after each burst of changes (as one small update after a
// snapshot, folded into a new snapshot every hundred), and tells `onChange`
// what a remote update changed. Writes made offline merge when it is back. `followSync(lectern,
// options)` keeps a Lectern's conversations in step with the document: what it stores goes to the
// document, what other devices wrote is stored in the document's order (issue 50).
import init, { SyncReplica } from './lectern_sync.js';

export { followSync, SyncFollower } from './lectern_sync_follow.js';

const DATABASE = 'lectern-sync';
/** A document's snapshot, by `<url>|<user>`. */
const STORE = 'documents';
/** What was written after it, one update a burst of changes: `[<url>|<user>, id]` → update. */
const UPDATES = 'updates';
/** Updates kept after a snapshot before they are folded into a new one. */
const FOLD_AFTER = 100;

/** Reconnection delays (ms): doubled from the first to the last, then the last again. */
const RETRY_FIRST_MS = 250;
const RETRY_LAST_MS = 4000;

/** A request's result, as a promise. */
const done = (request) => new Promise((resolve, reject) => {
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});

async function database() {
  const request = indexedDB.open(DATABASE, 2);
  request.onupgradeneeded = () => {
    const db = request.result;
    if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE);
    if (!db.objectStoreNames.contains(UPDATES)) db.createObjectStore(UPDATES);
  };
  const db = await done(request);
  // A newer version in another tab: let it upgrade (this tab's later writes are logged, not kept).
  db.onversionchange = () => db.close();
  return db;
}

/** The range of `key`'s kept updates (`[key, id]`, any id). */
const updatesOf = (key) => IDBKeyRange.bound([key], [key, []]);

/**
 * In one transaction: `current` (else the stored snapshot) and the updates kept by any tab merged,
 * kept as the snapshot, the updates deleted (nothing written when there is nothing to fold).
 * Resolves with the merged update, undefined when nothing is kept.
 */
async function fold(db, key, current) {
  const transaction = db.transaction([STORE, UPDATES], 'readwrite');
  const store = transaction.objectStore(STORE);
  const updates = transaction.objectStore(UPDATES);
  let merged;
  // Inside the success callbacks, so the transaction is still active for the writes.
  const withUpdates = (snapshot) => {
    updates.getAll(updatesOf(key)).onsuccess = ({ target: { result: kept } }) => {
      merged = mergeKept(snapshot, kept);
      if (!current && !kept.length) return;
      store.put(merged.buffer, key);
      updates.delete(updatesOf(key));
    };
  };
  if (current) withUpdates(current);
  else store.get(key).onsuccess = ({ target }) => withUpdates(target.result);
  await completed(transaction);
  return merged;
}

/** What is kept of document `key` as one update, read only (when it cannot be folded). */
async function readKept(db, key) {
  const transaction = db.transaction([STORE, UPDATES]);
  const [snapshot, updates] = await Promise.all([
    done(transaction.objectStore(STORE).get(key)),
    done(transaction.objectStore(UPDATES).getAll(updatesOf(key))),
  ]);
  return mergeKept(snapshot, updates);
}

/** One user's synced document on this device. */
export class SyncClient {
  /**
   * Opens the user's document (from IndexedDB when this device kept one) and connects to `url`
   * (`ws://host:port`, the server's origin) as `user` with `token`. `device` names this device
   * in what it writes (default: one made and kept in localStorage). `onChange(changes)` hears
   * each remote update's `{ conversations, positions, calls, books, settings }` (ids and names); `onStatus(status)` hears
   * `'connecting'`, `'online'` and `'offline'`.
   */
  static async open({ url, user, token, device, onChange, onStatus }) {
    await init({ module_or_path: new URL('./lectern_sync_bg.wasm', import.meta.url) });
    const db = await database();
    const key = `${url}|${user}`;
    // Read and merged once: the kept updates are folded into the snapshot the replica opens from.
    const kept = await fold(db, key).catch((error) => {
      console.warn(`lectern/sync: the kept updates were not folded: ${error.message}`);
      return readKept(db, key);
    });
    device ??= deviceId();
    const replica = new SyncReplica(device, kept);
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
    this.keptVector = replica.stateVector(); // what IndexedDB holds of the document
    this.keptUpdates = 0; // updates kept after its snapshot
    this.unkept = false; // a change since the last keep began
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
      if (Object.values(changes).some((ids) => ids.length)) {
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
   * Shares book `id` for other devices to import: its `title`, `author` and `bundleUrl`, where its
   * `exportBook` bundle is (`https://`, `http://` or a path of the site, `/…`; a `TypeError`
   * otherwise, and for an id that is not a book id or an empty title). The last device to share it wins.
   */
  shareBook({ id, title, author, bundleUrl }) {
    this.replica.shareBook(id, title, author ?? undefined, bundleUrl, Date.now());
    this.#wrote();
  }

  /** Every shared book: `{ [bookId]: { title, author?, bundleUrl, updatedAt, device } }`. */
  books() {
    return JSON.parse(this.replica.books());
  }

  /**
   * Sets the site's setting `key` (1 to 64 of `A-Z a-z 0-9 . - _`) to `value` (any JSON value) on
   * every device; the last device to set it wins. A name holding a secret's word (`apiKey`,
   * `token`, `secret`, `password`, in any case) is a `TypeError`: secrets are never synced.
   */
  setSetting(key, value) {
    this.replica.setSetting(key, JSON.stringify(value), Date.now());
    this.#wrote();
  }

  /** Every synced setting's value: `{ [key]: value }`. */
  settings() {
    const settings = JSON.parse(this.replica.settings());
    return Object.fromEntries(Object.entries(settings).map(([key, { value }]) => [key, value]));
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
   * Keeps the document in IndexedDB, changes made together kept together: once the current task's
   * changes are made, what was written since the last keep is added as one update (a burst of
   * writes is one small write, not the whole document), and once more after a write under way if
   * changes came meanwhile; every FOLD_AFTER updates they are folded into a new snapshot.
   * Resolves once it is kept.
   */
  #keep() {
    this.unkept = true;
    this.keeping ??= (async () => {
      await Promise.resolve();
      while (this.unkept) {
        this.unkept = false;
        await (this.keptUpdates >= FOLD_AFTER ? this.#fold() : this.#append());
      }
    })().finally(() => (this.keeping = null));
    return this.keeping;
  }

  /** Adds what was written since the last keep as one update. */
  async #append() {
    const vector = this.replica.stateVector();
    if (equalBytes(vector, this.keptVector)) return;
    const update = this.replica.diff(this.keptVector);
    const transaction = this.db.transaction(UPDATES, 'readwrite');
    transaction.objectStore(UPDATES).put(update.buffer, [this.key, `${Date.now()}-${crypto.randomUUID()}`]);
    await completed(transaction);
    this.keptVector = vector;
    this.keptUpdates += 1;
  }

  /** Folds this document and every kept update (another tab's too) into a new snapshot. */
  async #fold() {
    const vector = this.replica.stateVector();
    await fold(this.db, this.key, this.replica.snapshot());
    this.keptVector = vector;
    this.keptUpdates = 0;
  }

  #setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.onStatus?.(status);
  }
}

/**
 * A snapshot (or undefined) and the updates kept after it as one update; when one cannot be read,
 * the snapshot alone (what this device lacks then comes back from the server, and Lectern's own
 * store holds its records).
 */
function mergeKept(snapshot, updates) {
  const kept = [snapshot, ...updates].filter(Boolean).map((bytes) => new Uint8Array(bytes));
  if (kept.length < 2) return kept[0];
  try {
    return SyncReplica.mergeUpdates(kept);
  } catch (error) {
    console.warn(`lectern/sync: kept updates that cannot be read are dropped: ${error.message}`);
    return kept[0];
  }
}

/** Resolves once `transaction` completes; rejects with its error. */
function completed(transaction) {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error ?? new DOMException('aborted', 'AbortError'));
  });
}

/** Whether two byte arrays hold the same bytes. */
function equalBytes(a, b) {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** This browser's device id, made once and kept in localStorage. */
function deviceId() {
  const stored = globalThis.localStorage?.getItem('lectern-sync-device');
  if (stored) return stored;
  const made = crypto.randomUUID();
  globalThis.localStorage?.setItem('lectern-sync-device', made);
  return made;
}
