//! `recordEvents` and `replay`: each turn's events kept in the store as it
//! ends (answered, paused or failed; a resolve adds to the same turn), so a
//! page can re-render a past turn or debug one.

use std::cell::RefCell;

use super::turn_scope::TurnScope;
use super::Agent;
use crate::error::Result;
use crate::events::{Event, EventKind};

impl Agent {
    /// A new turn's recorder: on with `recordEvents`.
    pub(super) fn recorder(&self) -> Option<RefCell<Vec<Event>>> {
        self.config.record_events.then(|| RefCell::new(Vec::new()))
    }

    /// Stores the events the turn recorded. Best effort: the turn's outcome
    /// stands either way; a failed write is reported as a `warning` event
    /// (to listeners only).
    pub(super) async fn keep_recorded_events(&self, scope: &TurnScope<'_>) {
        let Some(recorded) = &scope.recorded else { return };
        let events: Vec<serde_json::Value> = recorded
            .take()
            .iter()
            // Through the JSON text every event is written as for listeners:
            // one serializer for events in the wasm, not two.
            .filter_map(|event| serde_json::from_str(&serde_json::to_string(event).ok()?).ok())
            .collect();
        if events.is_empty() {
            return;
        }
        let kept = self
            .store
            .append_turn_events(scope.conversation_id, &scope.turn_id, events)
            .await;
        if let Err(error) = kept {
            scope.events.emit_with(|| Event {
                conversation_id: scope.conversation_id.to_owned(),
                turn_id: scope.turn_id.clone(),
                kind: EventKind::Warning {
                    code: "eventsNotRecorded".into(),
                    message: format!("this turn's events could not be stored for replay ({error})"),
                },
            });
        }
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
