//! A reader's records on more than one device, through Yjs (the `yrs`
//! crate): one document per user, merged by the CRDT, exchanged with a
//! standard y-websocket server (docs/sync.md says why Yjs and how).
//!
//! What the document holds, each in a root type of its own (root types merge
//! by name, so no device ever creates a container another could create at the
//! same time and lose):
//!
//! - `conversations`: conversation id → the conversation (JSON; last writer wins);
//! - `order/<conversation id>`: its message ids in display order (a list;
//!   only appended to, read keeping each id's first occurrence);
//! - `messages`: message id → the message (JSON; written once);
//! - `positions`: book id → the reader's page there (last writer wins);
//! - `calls`: tool call id → the call and the device that owns its turn (written once);
//! - `decisions`: `<call id>/<device id>` → that device's decision on it;
//! - `results`: tool call id → what came of it, written by the owning device once;
//! - `books`: book id → where another device imports the book from (its
//!   `exportBook` bundle's URL; last writer wins). Books are never synced as bytes;
//! - `settings`: name → a setting the site chose to sync (any JSON; last
//!   writer wins). A name holding a secret's word (`apiKey`, `token`, …) is refused.
//!
//! A remote update reaches the document only after it has been applied to a
//! scratch copy and the rules held there ([`rules`]): nothing written is
//! rewritten or deleted, every record reads as its kind. A tool call runs only
//! on the device that owns it ([`calls`]), so it never runs twice.

pub mod calls;
pub mod document;
pub mod records;
pub mod remote;
pub mod rules;
pub mod wire;

pub use calls::EffectiveDecision;
pub use document::{call_key, SyncDocument};
pub use records::{SyncedBook, SyncedCall, SyncedDecision, SyncedPosition, SyncedSetting};
pub use remote::{Changes, Rejected};
pub use wire::Received;
