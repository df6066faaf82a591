//! One turn at a time per conversation: the lock seam, and its in-memory lock.
//!
//! Every `send`, `resolveApprovals` and `cancelPending` holds its
//! conversation's lock from before it reads the conversation until it is done.
//! [`MemoryLocks`] serialises the turns of the agents that share it (one agent
//! by default); in the browser, a database's agents share a Web Lock per
//! conversation, so turns of two tabs on one database queue too.

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use futures::lock::Mutex;
use futures::FutureExt;

use crate::error::Result;

/// Held while a turn runs on a conversation; dropping it lets the next one in.
pub struct TurnGuard {
    _held: Box<dyn Any>,
}

impl TurnGuard {
    /// A guard that releases the lock when `held` is dropped.
    pub fn holding(held: impl Any) -> Self {
        TurnGuard {
            _held: Box::new(held),
        }
    }
}

impl std::fmt::Debug for TurnGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TurnGuard")
    }
}

/// Locks conversations for the length of a turn.
pub trait TurnLocks {
    /// Waits until no other holder of this lock runs a turn on
    /// `conversation_id`, then holds it until the guard is dropped. Requests
    /// are granted in the order they were made; dropping the future before it
    /// completes withdraws the request (that is how a bounded wait gives up).
    fn lock(&self, conversation_id: &str) -> LocalBoxFuture<'static, Result<TurnGuard>>;

    /// The lock if no one holds it now, without waiting: `None` while a turn
    /// runs on `conversation_id` (here or in another tab).
    fn try_lock(&self, conversation_id: &str) -> LocalBoxFuture<'static, Result<Option<TurnGuard>>>;
}

/// Conversation locks in memory: they serialise the turns of the agents that
/// share this value (a second `send` waits for the first).
#[derive(Default)]
pub struct MemoryLocks {
    locks: RefCell<HashMap<String, Arc<Mutex<()>>>>,
}

impl MemoryLocks {
    /// No conversation locked.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TurnLocks for MemoryLocks {
    fn lock(&self, conversation_id: &str) -> LocalBoxFuture<'static, Result<TurnGuard>> {
        let lock = self
            .locks
            .borrow_mut()
            .entry(conversation_id.to_owned())
            .or_default()
            .clone();
        Box::pin(async move { Ok(TurnGuard::holding(lock.lock_owned().await)) })
    }

    fn try_lock(&self, conversation_id: &str) -> LocalBoxFuture<'static, Result<Option<TurnGuard>>> {
        // Granted at once or not at all: a request not granted on its first poll is withdrawn.
        let held = self.lock(conversation_id).now_or_never().transpose();
        Box::pin(async move { held })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_request_waits_for_the_guard_and_a_withdrawn_one_takes_nothing() {
        let locks = MemoryLocks::new();
        let first = locks.lock("c").now_or_never().unwrap().unwrap();
        assert!(
            locks.lock("other").now_or_never().is_some(),
            "other conversations are free"
        );
        let mut second = locks.lock("c");
        assert!(
            (&mut second).now_or_never().is_none(),
            "waits while the first holds it"
        );
        let mut withdrawn = locks.lock("c");
        assert!((&mut withdrawn).now_or_never().is_none());
        drop(withdrawn);
        drop(first);
        let second = second.now_or_never().expect("granted once released").unwrap();
        assert!(locks.lock("c").now_or_never().is_none(), "held by the second");
        drop(second);
        assert!(locks.lock("c").now_or_never().is_some());
    }

    #[test]
    fn try_lock_takes_a_free_lock_and_never_waits_for_a_held_one() {
        let locks = MemoryLocks::new();
        let held = locks.try_lock("c").now_or_never().unwrap().unwrap();
        assert!(held.is_some(), "free: taken");
        assert!(
            locks.try_lock("c").now_or_never().unwrap().unwrap().is_none(),
            "held: refused at once"
        );
        drop(held);
        let mut waiting = locks.lock("c");
        assert!(
            (&mut waiting).now_or_never().is_some(),
            "the refused try left no request behind"
        );
    }
}
