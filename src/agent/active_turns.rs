//! Which conversations this agent is running a turn on right now, so that
//! `deleteAllConversations` can refuse to pull the floor from under one.

use std::cell::RefCell;
use std::rc::Rc;

use super::TurnGuard;
use crate::domain::SortedMap;

/// Counts of running turns by conversation.
#[derive(Default, Clone)]
pub(super) struct ActiveTurns {
    running: Rc<RefCell<SortedMap<String, usize>>>,
}

/// A turn's conversation lock, and its mark among the running turns; both
/// are let go when it is dropped.
pub(super) struct HeldTurn {
    _guard: TurnGuard,
    running: Rc<RefCell<SortedMap<String, usize>>>,
    conversation_id: String,
}

impl ActiveTurns {
    /// Marks a turn on `conversation_id` running while `guard` is held.
    pub fn hold(&self, conversation_id: &str, guard: TurnGuard) -> HeldTurn {
        *self
            .running
            .borrow_mut()
            .get_or_default(conversation_id.to_owned()) += 1;
        HeldTurn {
            _guard: guard,
            running: self.running.clone(),
            conversation_id: conversation_id.to_owned(),
        }
    }

    /// A conversation with a running turn, if any.
    pub fn any(&self) -> Option<String> {
        self.running.borrow().keys().next().cloned()
    }
}

impl Drop for HeldTurn {
    fn drop(&mut self) {
        let mut running = self.running.borrow_mut();
        if let Some(count) = running.get_mut(&self.conversation_id) {
            *count -= 1;
            if *count == 0 {
                running.remove(&self.conversation_id);
            }
        }
    }
}
