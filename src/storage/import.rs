//! A whole conversation to write at once: what `importConversation` stores.

use crate::domain::{Conversation, Message, ToolCallRecord, UsageTotals};
use crate::domain::{Grant, PendingTurn};
use crate::error::{Error, Result, StorageReason};

/// A conversation with everything of it, written by [`super::Store::import_conversation`]
/// in one transaction. Every record belongs to `conversation` (its `conversation_id`).
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationImport {
    /// The conversation's record; its id must not be taken.
    pub conversation: Conversation,
    /// Its messages in order; the store gives them `seq` 0, 1, 2, ...
    pub messages: Vec<Message>,
    /// Its tool-call records.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Its paused turns; their turn ids must not be taken.
    pub pending_turns: Vec<PendingTurn>,
    /// Its usage totals.
    pub usage: UsageTotals,
    /// Its "always allow" grants.
    pub grants: Vec<Grant>,
}

impl ConversationImport {
    /// Checks that every record belongs to the conversation: a `Storage`
    /// error (reason `constraint`) naming the first that does not.
    pub fn check_owner(&self) -> Result<()> {
        let id = self.conversation.id.as_str();
        let owners = self
            .messages
            .iter()
            .map(|m| ("message", m.conversation_id.as_str()))
            .chain(
                self.tool_calls
                    .iter()
                    .map(|r| ("tool-call record", r.conversation_id.as_str())),
            )
            .chain(
                self.pending_turns
                    .iter()
                    .map(|t| ("paused turn", t.conversation_id.as_str())),
            )
            .chain(self.grants.iter().map(|g| ("grant", g.conversation_id.as_str())))
            .chain(std::iter::once((
                "usage totals",
                self.usage.conversation_id.as_str(),
            )));
        for (what, owner) in owners {
            if owner != id {
                return Err(Error::storage_because(
                    StorageReason::Constraint,
                    format!("an imported {what} belongs to conversation {owner}, not {id}"),
                ));
            }
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
