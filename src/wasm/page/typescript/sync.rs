//! TypeScript types — sync: `Lectern.open`'s `sync` option and its events.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const SYNC: &'static str = r#"
import type { SyncFollower } from './lectern_sync_client.js';

/**
 * `Lectern.open`'s `sync`: the instance follows the user's synced document (`lectern/sync`'s
 * `followSync`, loaded only when this is set). Conversations, approvals of calls paused here and
 * every `setCurrentPage` go to every device; what other devices wrote is stored here. See docs/sync.md.
 */
export interface SyncOptions {
  /** The sync server's origin, `ws://` or `wss://` (`ConfigError` otherwise). */
  url: string;
  /** Whose document: the server's room, checked against `token`. */
  user: string;
  /** The host's token for `user`, given to the server (never stored by Lectern). */
  token: string;
  /** This device's name in what it writes (default: one made and kept in localStorage). */
  device?: string;
}

/** The sync connection's state changed (instances opened with `sync`). */
export interface SyncStatusEvent {
  type: 'syncStatus';
  status: 'connecting' | 'online' | 'offline';
}

/** Another device changed what is stored here: a conversation's messages (show it afresh) or a book's page; shared a book (`lectern.sync.importSharedBook(sharedBookId)` imports it); or set a setting of the site's (`lectern.sync.client.setSetting`). */
export type SyncedEvent =
  | { type: 'synced'; conversationId: string }
  | { type: 'synced'; bookId: string; page: number }
  | { type: 'synced'; sharedBookId: string }
  | { type: 'synced'; setting: string; value: unknown };
"#;
