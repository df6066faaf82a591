//! Keeping a turn's open-turn record: written with the user message,
//! rewritten with every stored step and before a step's tools run, deleted in
//! the write that ends the turn. A record whose conversation lock is free
//! belongs to a turn a closed page cut off (see `agent::resume`).

use super::{Turn, TurnScope};
use crate::agent::step::settled_of;
use crate::domain::{Mention, Message, OpenStepRecord, OpenTurn, OpenTurnChange};
use crate::error::Result;
use crate::provider::ModelResponse;
use crate::storage::TurnWrite;
use crate::tool::ToolOutcome;

impl TurnScope {
    /// The change that ends this turn's open-turn record.
    pub(super) fn end_of_turn(&self) -> OpenTurnChange {
        OpenTurnChange::Delete {
            conversation_id: self.conversation_id.clone(),
            turn_id: self.turn_id.clone(),
        }
    }
}

impl Turn<'_> {
    /// The change that ends the turn's open-turn record.
    pub fn end_of_turn(&self) -> OpenTurnChange {
        self.scope.end_of_turn()
    }

    /// The open-turn record of the turn as it is now, with the tool step
    /// whose calls are about to run, if any.
    pub(super) fn open_turn_record(&self, step: Option<OpenStepRecord>) -> OpenTurn {
        OpenTurn {
            turn_id: self.scope.turn_id.clone(),
            conversation_id: self.scope.conversation_id.clone(),
            started_at: self.scope.started_at,
            updated_at: self.agent.clock.now_ms(),
            prepared: true,
            mentions: Vec::new(),
            state: self.state.clone(),
            step,
        }
    }

    /// Stores the user message (none for a retry) with the turn's first
    /// open-turn record, in one write: from here on a closed page leaves a
    /// turn that can be resumed.
    pub async fn begin(&self, user: Option<Message>, mentions: &[Mention]) -> Result<()> {
        let mut record = self.open_turn_record(None);
        record.prepared = false;
        record.mentions = mentions.to_vec();
        let write = TurnWrite {
            messages: user.into_iter().collect(),
            open_turn: Some(OpenTurnChange::Put(Box::new(record))),
            ..TurnWrite::default()
        };
        self.agent.store.commit(write).await.map(|_| ())
    }

    /// Rewrites the open-turn record with the step of `response`, whose
    /// calls are about to run (those in `settled` were settled without
    /// running): if the page closes while they run, a resume answers them
    /// "Interrupted".
    pub(super) async fn note_open_step(
        &self,
        response: &ModelResponse,
        settled: &[ToolOutcome],
    ) -> Result<()> {
        let step = OpenStepRecord {
            text: response.text.clone(),
            reasoning: response.reasoning.clone(),
            calls: response.tool_calls.clone(),
            settled: settled_of(settled, self.agent.config.max_tool_result_chars),
            records: settled.iter().map(|o| o.record.clone()).collect(),
        };
        let record = self.open_turn_record(Some(step));
        let write = TurnWrite {
            open_turn: Some(OpenTurnChange::Put(Box::new(record))),
            ..TurnWrite::default()
        };
        self.agent.store.commit(write).await.map(|_| ())
    }

    /// Deletes the record of a turn that failed. Best effort: the turn's
    /// error is what the caller hears; a record left behind is listed as
    /// interrupted, and resuming it goes on from its last stored step.
    pub(super) async fn end_open_turn(&self) {
        let write = TurnWrite {
            open_turn: Some(self.scope.end_of_turn()),
            ..TurnWrite::default()
        };
        let _ = self.agent.store.commit(write).await;
    }
}
