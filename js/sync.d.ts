/** What a remote update changed: ids. */
export interface SyncChanges {
  conversations: string[];
  positions: string[];
  calls: string[];
  books: string[];
  /** Setting names. */
  settings: string[];
}

/** A device's decision on a synced call. */
export type SyncDecision =
  | { decision: 'approve' }
  | { decision: 'edit'; arguments: string }
  | { decision: 'reject'; reason?: string };

/** A tool call waiting for a person, as the document holds it. */
export interface SyncedCall {
  /** Its key in the document: `<turnId>:<callId>`. */
  id: string;
  /** The provider's call id (`resolveApprovals`' `callId`). */
  callId: string;
  conversationId: string;
  turnId: string;
  name: string;
  /** JSON text. */
  arguments: string;
  /** The device whose turn paused: the only one that runs it. */
  owner: string;
  /** From every device's: a rejection beats an edit, an edit an approval. */
  decision:
    | { decision: 'undecided' | 'approved' }
    | { decision: 'edited'; arguments: string }
    | { decision: 'rejected'; reason: string | null };
  /** Its owner recorded what came of it. */
  done: boolean;
}

/** The reader's place in a book, as the last device to move it left it. */
export interface SyncedPosition {
  page: number;
  updatedAt: number;
  device: string;
}

/** A book the user shared: where another device imports it from. */
export interface SharedBook {
  title: string;
  author?: string;
  /** Where its `exportBook` bundle is: `https://…`, `http://…` or a path of the site (`/…`). */
  bundleUrl: string;
  updatedAt: number;
  /** The device that shared it. */
  device: string;
}

import type { Book, Lectern } from './lectern.js';

/**
 * One user's synced document on this device (lectern/sync): kept in IndexedDB, exchanged with the
 * sync server (`scripts/sync-server.mjs`) over a WebSocket, reconnecting after a drop.
 * `followSync` keeps a Lectern's conversations in step with it.
 */
export class SyncClient {
  /**
   * Opens the user's document (from IndexedDB when kept) and connects to `url` (the server's
   * `ws://` or `wss://` origin) as `user` with `token`.
   */
  static open(options: {
    url: string;
    user: string;
    token: string;
    /** This device's id in what it writes (default: one made and kept in localStorage). */
    device?: string;
    onChange?: (changes: SyncChanges) => void;
    onStatus?: (status: 'connecting' | 'online' | 'offline') => void;
  }): Promise<SyncClient>;
  /** This device's id in what it writes. */
  readonly device: string;
  /** The connection's state. */
  readonly status: 'connecting' | 'online' | 'offline';
  /** Connects again (after `disconnect()`) and keeps reconnecting. */
  connect(): void;
  /** Closes the connection and stops reconnecting; writes go on and are sent at `connect()`. */
  disconnect(): void;
  /** Adds or renames a conversation (a stored conversation record). */
  putConversation(conversation: { id: string; title: string; createdAt: number; bookId?: string }): void;
  /** Appends a message (a stored message record); one already there is left as it is. */
  appendMessage(message: { id: string; conversationId: string; role: 'system' | 'user' | 'assistant' | 'tool_result'; content: string; createdAt: number }): void;
  /** Sets the reader's page in a book. */
  setPosition(bookId: string, page: number): void;
  /** Shares a book for other devices to import (a `TypeError` for a bad id, an empty title or a URL not `https://`, `http://` or `/…`). */
  shareBook(book: { id: string; title: string; author?: string; bundleUrl: string }): void;
  /** Every shared book, by book id. */
  books(): Record<string, SharedBook>;
  /** Sets a setting the site chose to sync, on every device (a `TypeError` for a name that is not 1 to 64 of `A-Z a-z 0-9 . - _` or holds `apiKey`, `token`, `secret` or `password`: secrets are never synced). */
  setSetting(key: string, value: unknown): void;
  /** Every synced setting's value, by name. */
  settings(): Record<string, unknown>;
  /**
   * Records call `callId` of a turn paused on this device (its owner: the only device that runs
   * it) as waiting for a person; `arguments` as JSON text. One already recorded is left as it is.
   * Returns its key (`<turnId>:<callId>`: a provider's call ids repeat across turns).
   */
  addCall(call: { callId: string; conversationId: string; turnId: string; name: string; arguments: string }): string;
  /** This device's decision on the call of key `id` (a rejection on any device beats an approval). */
  decide(id: string, decision: SyncDecision): void;
  /** Every recorded call, with the decision of every device's and whether its owner ran it. */
  calls(): SyncedCall[];
  /** The calls this device may run now: its own, decided, nothing recorded of them yet. */
  callsToRun(): SyncedCall[];
  /** What came of a call this device ran (its stored tool-call record), recorded once. */
  recordResult(record: Record<string, unknown>): void;
  /** Every conversation. */
  conversations(): Array<{ id: string; title: string; createdAt: number; bookId?: string }>;
  /** A conversation's messages in the order every device shows, `seq` from 0. */
  messages(conversationId: string): Array<{ id: string; conversationId: string; seq: number; role: string; content: string; createdAt: number }>;
  /** Every book's place, by book id. */
  positions(): Record<string, SyncedPosition>;
  /** The reader's place in a book, or null. */
  position(bookId: string): SyncedPosition | null;
  /** Disconnects for good, once the document is kept. */
  close(): Promise<void>;
}

/** `followSync`'s options: `SyncClient.open`'s, and who hears a conversation rewritten here. */
export interface FollowSyncOptions {
  url: string;
  user: string;
  token: string;
  device?: string;
  onStatus?: (status: 'connecting' | 'online' | 'offline') => void;
  /** A conversation a remote change wrote here, a book it turned to another page (show it afresh), a book another device shared, or a setting it set. */
  onSynced?: (change: { conversationId: string } | { bookId: string; page: number } | { sharedBookId: string } | { setting: string; value: unknown }) => void;
}

/**
 * Keeps `lectern`'s conversations in step with the user's synced document: every conversation it
 * stores is written to the document at once and after each step of a turn; what other devices
 * wrote is stored here (`mergeSyncedConversation`), each conversation's messages in the document's
 * order, the same on every device; a book's page set with `setCurrentPage` follows too. A turn that pauses here records its calls for any device to
 * decide (`client.decide`); once all are decided, this device (their owner, the only one that runs
 * them) resolves the turn, and records what came of each. Resolves once both ways have been done
 * for what is there now.
 */
export function followSync(lectern: Lectern, options: FollowSyncOptions): Promise<SyncFollower>;

/** A Lectern following a synced document (`followSync`). */
export class SyncFollower {
  /** The document's client (positions, status, `connect()` and `disconnect()`). */
  readonly client: SyncClient;
  /** Writes these conversations' stored records to the document. */
  pushEach(conversationIds: string[]): void;
  /** Stores these conversations as the document has them. */
  pullEach(conversationIds: string[]): void;
  /** Sets the reader's page in a book here (`setCurrentPage`) and in the document, for every device. */
  setCurrentPage(bookId: string, page: number): Promise<Book>;
  /** Records that a book is at `page` here, for every device (a Lectern opened with `sync` calls it after each `setCurrentPage`). */
  pageTurned(bookId: string, page: number): void;
  /** Shares a book of this library for other devices to import from `bundleUrl` (its `exportBook` bundle, which the host serves). */
  shareBook(bookId: string, bundleUrl: string): Promise<void>;
  /** Every shared book, with whether this library holds it. */
  sharedBooks(): Promise<Array<SharedBook & { id: string; inLibrary: boolean }>>;
  /**
   * Imports a shared book from its bundle (`importBook`) and turns it to the document's page; the
   * book itself when this library holds it already. `NotFoundError` for a book nobody shared,
   * `SyncError` for a bundle that is not of that book (nothing is kept of it).
   */
  importSharedBook(bookId: string): Promise<Book>;
  /** Turns these books here to the page the document has for them. */
  turnPages(bookIds: string[]): void;
  /** Goes on with this device's paused turns whose every call some device decided. */
  runDecided(): void;
  /** Resolves when every write queued so far is done. */
  settled(): Promise<void>;
  /** Stops following and closes the connection, once the document is kept. */
  close(): Promise<void>;
}
