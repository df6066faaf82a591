//! The sync module (`lectern_sync.js`, feature `sync`): [`replica::SyncReplica`],
//! one user's sync document in a page, which `lectern/sync`'s client
//! (`js/sync.js`) keeps in IndexedDB and exchanges with the sync server over a
//! WebSocket. Loaded only by pages that sync.

mod calls;
mod replica;
