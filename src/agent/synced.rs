//! A conversation as the user's other devices left it (`lectern/sync`,
//! issue 50): the synced document's messages stored here in the document's
//! order, the same on every device, with nothing of this device's lost.

use std::collections::HashSet;

use super::Agent;
use crate::domain::{Conversation, Message};
use crate::error::Result;
use crate::storage::SyncedMessages;

impl Agent {
    /// Stores conversation `conversation` as the synced document has it:
    /// its record, and `synced` (its messages in the document's order)
    /// followed by any stored here that the document does not hold yet, in
    /// one transaction. Returns whether anything was written (nothing when
    /// the store already holds it so). A message of another conversation or
    /// an id given twice is a `Storage` error (constraint), nothing written.
    pub async fn merge_synced(&self, conversation: Conversation, synced: Vec<Message>) -> Result<bool> {
        let id = conversation.id.clone();
        let (stored, local) = match self.store.conversation(&id).await? {
            Some(stored) => (Some(stored), self.store.messages(&id).await?),
            None => (None, Vec::new()),
        };
        let messages = merged(&local, synced);
        let same_order = messages.iter().map(|m| &m.id).eq(local.iter().map(|m| &m.id));
        if same_order && stored.as_ref() == Some(&conversation) {
            return Ok(false);
        }
        let write = SyncedMessages {
            conversation,
            messages,
        };
        self.archive().await?.put_synced_messages(write).await?;
        Ok(true)
    }
}

/// `synced` in its order, then the messages of `local` it lacks, in theirs.
fn merged(local: &[Message], synced: Vec<Message>) -> Vec<Message> {
    let held: HashSet<&str> = synced.iter().map(|m| m.id.as_str()).collect();
    let missing: Vec<Message> = local
        .iter()
        .filter(|m| !held.contains(m.id.as_str()))
        .cloned()
        .collect();
    let mut messages = synced;
    messages.extend(missing);
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Role;

    fn message(id: &str) -> Message {
        Message::new(id.to_owned(), "c", Role::User, id, 1.0)
    }

    fn ids(messages: &[Message]) -> Vec<&str> {
        messages.iter().map(|m| m.id.as_str()).collect()
    }

    #[test]
    fn the_synced_order_comes_first_and_local_messages_it_lacks_follow() {
        let local = [message("a"), message("b"), message("x")];
        let synced = vec![message("r"), message("a"), message("b")];
        assert_eq!(ids(&merged(&local, synced)), ["r", "a", "b", "x"]);
        assert_eq!(ids(&merged(&[], vec![message("p")])), ["p"]);
        assert_eq!(ids(&merged(&local, Vec::new())), ["a", "b", "x"]);
    }
}
