//! A checked approval decision: what `resolveApprovals` was told about one
//! call, read by the resolve itself and by the grants it writes.

use crate::approval::DecisionKind;
use crate::domain::{Decision, ToolCall};

/// What the model reads for a call a person rejected.
pub const REJECTED: &str = "User rejected this action";

/// A checked decision: the call as it will run (edits applied).
pub(super) struct Decided {
    /// The call as it will run (an edit's arguments in it).
    pub(super) call: ToolCall,
    /// The arguments the model wrote.
    pub(super) original_arguments: String,
    /// What the person decided.
    pub(super) kind: DecisionKind,
    /// Why, if they said.
    pub(super) reason: Option<String>,
}

impl Decided {
    /// The decision its record carries.
    pub(super) fn record_decision(&self) -> Decision {
        match self.kind {
            DecisionKind::Approve => Decision::Approved,
            DecisionKind::ApproveAlways => Decision::ApprovedAlways,
            DecisionKind::Edit => Decision::Edited,
            DecisionKind::Reject => Decision::Rejected,
        }
    }
}
