//! How a turn ends for its caller: its result, or its failure with what was
//! done — a tool step cut off mid-way stored, an aborted answer's streamed
//! text kept (marked interrupted), an `error` event emitted — and, with
//! `recordEvents`, its events stored.

use super::Turn;
use crate::domain::{Message, Role};
use crate::error::{Error, Result};
use crate::events::{Event, EventKind};
use crate::runtime::ids::new_id;

use crate::agent::{TurnError, TurnResult};

impl Turn<'_> {
    /// The turn's result, or its failure (`outcome`'s error) with what was done.
    pub async fn conclude(mut self, outcome: Result<TurnResult>) -> Result<TurnResult, TurnError> {
        let error = match outcome {
            Ok(result) => {
                self.keep_recorded_events().await;
                return Ok(result);
            }
            Err(error) => error,
        };
        self.store_cut_step().await;
        self.end_open_turn().await;
        if error == Error::Aborted {
            if let Some(partial) = &self.state.partial_text {
                self.keep_interrupted_answer(partial).await;
            }
        }
        self.scope.emit(|| EventKind::Error {
            name: error.name().to_owned(),
            message: error.to_string(),
        });
        self.keep_recorded_events().await;
        let usage = self.usage();
        let state = self.state;
        Err(TurnError {
            error,
            partial_text: state.partial_text,
            steps: state.steps,
            tool_calls: state.records,
            usage,
            egress: state.egress,
        })
    }

    /// Keeps the text an aborted answer had streamed, marked interrupted. Best
    /// effort: the abort is what the caller hears about either way.
    async fn keep_interrupted_answer(&self, partial: &str) {
        let now = self.agent.clock.now_ms();
        let conversation_id = &self.scope.conversation_id;
        let mut answer = Message::new(new_id(now), conversation_id, Role::Assistant, partial, now);
        answer.interrupted = true;
        let _ = self.agent.store.append_messages(vec![answer]).await;
    }

    /// Stores the events the turn recorded. Best effort: the turn's outcome
    /// stands either way; a failed write is reported as a `warning` event
    /// (to listeners only).
    async fn keep_recorded_events(&self) {
        let scope = &self.scope;
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
            .agent
            .store
            .append_turn_events(&scope.conversation_id, &scope.turn_id, events)
            .await;
        if let Err(error) = kept {
            scope.events.emit_with(|| Event {
                conversation_id: scope.conversation_id.clone(),
                turn_id: scope.turn_id.clone(),
                kind: EventKind::Warning {
                    code: "eventsNotRecorded".into(),
                    message: format!("this turn's events could not be stored for replay ({error})"),
                },
            });
        }
    }
}
