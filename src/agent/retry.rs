//! Retrying a failed turn: the model is asked again about the conversation's
//! trailing user message, which is not stored a second time.

use super::{Agent, SendOptions, TurnError, TurnResult};
use crate::domain::Role;
use crate::error::{Error, Result};
use crate::events::EventSink;

impl Agent {
    /// Runs the turn again from the conversation's trailing user message — the
    /// one a failed turn left without an answer — without storing it again.
    ///
    /// Resolves like [`Agent::send`]. A conversation whose last message is not
    /// a user message is a `ConfigError` (nothing to retry); one with a paused
    /// turn is `ApprovalPending`.
    pub async fn retry(
        &self,
        conversation_id: &str,
        options: &SendOptions,
        events: &EventSink,
    ) -> Result<TurnResult, TurnError> {
        self.run_turn(conversation_id, None, options, events).await
    }

    /// The user's text of a retried turn: the conversation's last message, if it is the user's.
    pub(super) async fn trailing_user_text(&self, conversation_id: &str) -> Result<String> {
        let last = self.store.recent_messages(conversation_id, None, 1).await?;
        match last.last() {
            Some(message) if message.role == Role::User => Ok(message.content.clone()),
            Some(_) => Err(Error::config(
                "nothing to retry: the conversation's last message is not a user message",
            )),
            None => Err(Error::config(
                "nothing to retry: the conversation has no messages",
            )),
        }
    }
}
