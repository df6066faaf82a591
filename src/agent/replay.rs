//! `recordEvents` and `replay`: each turn's events kept in the store as it
//! ends (answered, paused or failed; a resolve adds to the same turn), so a
//! page can re-render a past turn or debug one.

use std::cell::RefCell;

use super::Agent;
use crate::error::Result;
use crate::events::Event;

impl Agent {
    /// A new turn's recorder: on with `recordEvents`.
    pub(super) fn recorder(&self) -> Option<RefCell<Vec<Event>>> {
        self.config.record_events.then(|| RefCell::new(Vec::new()))
    }

    /// The recorded events of a turn as JSON (the shape listeners receive), in
    /// the order they were emitted (empty when it recorded none).
    pub async fn replay(&self, turn_id: &str) -> Result<Vec<serde_json::Value>> {
        self.archive().await?.turn_events(turn_id).await
    }

    /// The ids of a conversation's turns with recorded events, oldest first.
    pub async fn recorded_turns(&self, conversation_id: &str) -> Result<Vec<String>> {
        self.archive().await?.recorded_turns(conversation_id).await
    }
}
