// followSync (lectern/sync): a Lectern's store following the user's synced document. What this
// device stores goes to the document after each step of a turn; what other devices wrote is
// stored here in the document's order (mergeSyncedConversation); a turn paused here records its
// calls for any device to decide, and this device, their owner, runs them once; a book's page
// follows. Shipped as lectern_sync_follow.js beside lectern_sync_client.js, which re-exports it.
import { SyncClient } from './lectern_sync_client.js';

/** A synced decision (`{ decision: 'approved' | 'edited' | 'rejected', … }`) as `resolveApprovals` takes it. */
function approvalDecision(callId, { decision, arguments: args, reason }) {
  if (decision === 'approved') return { callId, decision: 'approve' };
  if (decision === 'edited') return { callId, decision: 'edit', arguments: args };
  return reason ? { callId, decision: 'reject', reason } : { callId, decision: 'reject' };
}

/** An `Error` named `name`. */
function named(name, message) {
  return Object.assign(new Error(message), { name });
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
      for (const sharedBookId of changes.books) onSynced?.({ sharedBookId });
      if (changes.settings.length) {
        const settings = follower.client.settings();
        for (const setting of changes.settings) onSynced?.({ setting, value: settings[setting] });
      }
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
      for (const conversation of this.client.conversations()) await this.#pull(conversation);
      await this.#turnPages(Object.keys(this.client.positions()));
      await this.#runDecided();
    });
  }

  /** Sets the reader's page in `bookId` here (`setCurrentPage`) and in the document, for every device. */
  async setCurrentPage(bookId, page) {
    const book = await this.lectern.setCurrentPage(bookId, page);
    this.pageTurned(bookId, book.currentPage);
    return book;
  }

  /**
   * Records that `bookId` is at `page` here, for every device; nothing when the document has that
   * page already (a page another device turned, set here). A Lectern opened with `sync` calls this
   * after each `setCurrentPage`.
   */
  pageTurned(bookId, page) {
    if (this.client.position(bookId)?.page !== page) this.client.setPosition(bookId, page);
  }

  /** Shares book `bookId` of this library for other devices to import from `bundleUrl` (its `exportBook` bundle, which the host serves). */
  async shareBook(bookId, bundleUrl) {
    const book = (await this.lectern.books()).find((b) => b.id === bookId);
    if (!book) throw named('NotFoundError', `no book ${bookId} in this library`);
    this.client.shareBook({ id: bookId, title: book.title, author: book.author, bundleUrl });
  }

  /** Every shared book, `{ id, title, author?, bundleUrl, updatedAt, device, inLibrary }`. */
  async sharedBooks() {
    const here = new Set((await this.lectern.books()).map((b) => b.id));
    return Object.entries(this.client.books()).map(([id, book]) => ({ id, ...book, inLibrary: here.has(id) }));
  }

  /**
   * Imports shared book `bookId` from its bundle and turns it to the document's page; the book
   * itself when this library holds it already. A bundle of another book is deleted again, a `SyncError`.
   */
  async importSharedBook(bookId) {
    const shared = this.client.books()[bookId];
    if (!shared) throw named('NotFoundError', `no book ${bookId} was shared`);
    let book = (await this.lectern.books()).find((b) => b.id === bookId);
    if (!book) {
      const response = await fetch(new URL(shared.bundleUrl, globalThis.location?.href));
      if (!response.ok) throw named('SyncError', `the bundle of ${bookId} answered ${response.status}`);
      book = await this.lectern.importBook(await response.arrayBuffer());
      if (book.id !== bookId) {
        await this.lectern.deleteBook(book.id);
        throw named('SyncError', `the bundle at ${shared.bundleUrl} holds book ${book.id}, not ${bookId}`);
      }
    }
    await this.#turnPages([bookId]);
    return (await this.lectern.books()).find((b) => b.id === bookId) ?? book;
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
      const changed = this.client.conversations().filter((c) => ids.includes(c.id));
      for (const conversation of changed) await this.#pull(conversation);
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
    if (!bundle.toolCalls.length) return;
    const open = this.client.calls().filter((c) => !c.done && c.owner === this.client.device && c.conversationId === id);
    for (const record of bundle.toolCalls) {
      if (open.some((c) => c.turnId === record.turnId && c.callId === record.id)) this.client.recordResult(record);
    }
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

  async #pull(conversation) {
    const synced = this.client.messages(conversation.id);
    const changed = await this.lectern.mergeSyncedConversation(conversation, synced);
    if (changed) this.onSynced?.({ conversationId: conversation.id });
  }
}
