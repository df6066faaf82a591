/** What a remote update changed: ids. */
export interface SyncChanges {
  conversations: string[];
  positions: string[];
  calls: string[];
}

/** The reader's place in a book, as the last device to move it left it. */
export interface SyncedPosition {
  page: number;
  updatedAt: number;
  device: string;
}

/**
 * One user's synced document on this device (lectern/sync): kept in IndexedDB, exchanged with the
 * sync server (`scripts/sync-server.mjs`) over a WebSocket, reconnecting after a drop. The sync
 * transport alone: Lectern's store does not follow it yet.
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
  /** Every conversation. */
  conversations(): Array<{ id: string; title: string; createdAt: number; bookId?: string }>;
  /** A conversation's messages in the order every device shows, `seq` from 0. */
  messages(conversationId: string): Array<{ id: string; conversationId: string; seq: number; role: string; content: string; createdAt: number }>;
  /** The reader's place in a book, or null. */
  position(bookId: string): SyncedPosition | null;
  /** Disconnects for good, once the document is kept. */
  close(): Promise<void>;
}
