//! A conversation as the synced document orders it: what
//! `StoreArchive::put_synced_messages` writes (issue 50, `lectern/sync`).

use std::collections::HashSet;

use crate::domain::{Conversation, Message};
use crate::error::{Error, Result, StorageReason};

/// A conversation's record and every one of its messages, in the order
/// every device shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncedMessages {
    /// The conversation's record (created when it is not stored).
    pub conversation: Conversation,
    /// All its messages in order; the store gives them `seq` 0, 1, 2, ...
    pub messages: Vec<Message>,
}

impl SyncedMessages {
    /// Checks that every message belongs to the conversation and that no id
    /// comes twice: a `Storage` error (reason `constraint`) naming the first
    /// that does not hold.
    pub fn check(&self) -> Result<()> {
        let id = self.conversation.id.as_str();
        let mut seen = HashSet::new();
        for message in &self.messages {
            let fault = if message.conversation_id != id {
                format!(
                    "a synced message {} belongs to conversation {}, not {id}",
                    message.id, message.conversation_id
                )
            } else if !seen.insert(message.id.as_str()) {
                format!("synced message {} comes twice", message.id)
            } else {
                continue;
            };
            return Err(Error::storage_because(StorageReason::Constraint, fault));
        }
        Ok(())
    }

    /// Gives the messages their `seq`s: 0, 1, 2, ... in order.
    pub fn number_messages(&mut self) {
        for (message, seq) in self.messages.iter_mut().zip(0u32..) {
            message.seq = seq;
        }
    }
}
