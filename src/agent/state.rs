//! The outcome of a turn from what it carried (the state itself is a
//! stored record: `domain::TurnState`).

use super::{TurnResult, TurnStatus};
use crate::domain::{PendingCall, TurnState, TurnUsage};

impl TurnState {
    /// The turn's outcome so far, with `status`, answer `text`, `pending`
    /// calls and its `usage` (with cost: `Agent::turn_usage`).
    pub fn result(
        &self,
        turn_id: &str,
        status: TurnStatus,
        text: String,
        pending: Vec<PendingCall>,
        usage: TurnUsage,
    ) -> TurnResult {
        TurnResult {
            status,
            turn_id: turn_id.to_owned(),
            text,
            pending,
            tool_calls: self.records.clone(),
            usage,
            steps: self.steps,
            egress: self.egress.clone(),
            data: None,
            sources: Vec::new(),
            source_check: None,
            quoted: None,
        }
    }
}
