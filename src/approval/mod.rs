//! Human in the loop: which tool calls need a person's approval, the turns
//! paused waiting for one, and the decisions that resume them.
//!
//! A tool's [`ApprovalPolicy`] is `auto` (run), `ask` (pause the turn until a
//! person decides) or `deny` (answer the model with a refusal). A paused turn
//! is persisted as a [`PendingTurn`] in the same write as the step that
//! produced it, so it survives a reload; [`ApprovalDecision`]s resume it.

mod decision;
mod options;
mod policy;

pub use crate::domain::OnNewMessage;
pub use crate::domain::{
    ApprovalOverrides, ClaimedCall, Decision, Grant, PausedStep, PendingApproval, PendingCall, PendingStatus,
    PendingTurn, SettledCall,
};
pub use decision::{ApprovalDecision, DecisionKind};
pub use options::ApprovalOptions;
pub use policy::{ApprovalConfig, ApprovalPolicy, PolicyContext, PolicyRule, ToolPolicy};
