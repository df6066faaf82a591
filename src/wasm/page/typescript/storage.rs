//! TypeScript types — storage: the origin's quota and the database connection closing.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const STORAGE: &'static str = r#"
/** What `storageEstimate()` resolves with: the origin's storage, in bytes. */
export interface StorageUsage {
  /** Bytes the origin uses (all its storage, not only Lectern's database). */
  usage: number;
  /** Bytes it may use. */
  quota: number;
  /** Whether the browser keeps the origin's storage under pressure (see `persist()`). */
  persisted: boolean;
}

/**
 * `storageClosed`, sent to `onEvent` when another tab opened a newer version of the database
 * (`newVersion`) or deleted it (`newVersion: null`): this instance closed its connection so that
 * tab is not blocked, and its later calls reject with `StorageError` reason `closed`. Reload to go on.
 */
export interface StorageClosedEvent {
  type: 'storageClosed';
  dbName: string;
  reason: 'versionChange';
  newVersion: number | null;
}

/**
 * A `warning` of the instance, not of a turn (no turn fields; a turn's is `WarningEvent`): something
 * works, but less well than it should here. `webLocksUnavailable`: the browser has no
 * usable Web Locks (`navigator.locks`), so this instance queues its own turns on a conversation but
 * another tab on the same `dbName` is not kept apart from them (sent once per instance, at the
 * first turn that needed a lock).
 */
export interface InstanceWarningEvent {
  type: 'warning';
  code: 'webLocksUnavailable';
  message: string;
}
"#;
