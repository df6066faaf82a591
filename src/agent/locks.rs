//! One turn at a time per conversation.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures::lock::Mutex;

/// A lock per conversation id: a second `send` waits for the first.
#[derive(Default)]
pub struct ConversationLocks {
    locks: RefCell<HashMap<String, Rc<Mutex<()>>>>,
}

impl ConversationLocks {
    /// No conversation locked.
    pub fn new() -> Self {
        Self::default()
    }

    /// The lock of `conversation_id` (created on first use).
    pub fn lock_for(&self, conversation_id: &str) -> Rc<Mutex<()>> {
        self.locks
            .borrow_mut()
            .entry(conversation_id.to_owned())
            .or_insert_with(|| Rc::new(Mutex::new(())))
            .clone()
    }
}
