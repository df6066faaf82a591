//! "Always allow": the grants a person gives with `approveAlways`, read at
//! turn start, written with the resolve's step commit, and revoked with
//! `resetApprovals`.

use super::decided::Decided;
use super::{Agent, TurnState};
use crate::approval::{DecisionKind, Grant, PendingTurn};
use crate::domain::ToolCall;
use crate::error::Result;

impl Agent {
    /// The tools a person allowed for the whole conversation.
    pub(super) async fn granted_tools(&self, conversation_id: &str) -> Result<Vec<String>> {
        Ok(self
            .store
            .grants(conversation_id)
            .await?
            .into_iter()
            .map(|grant| grant.tool_name)
            .collect())
    }

    /// Revokes every "always allow" of a conversation: its tools ask again
    /// from the next tool step on. `NotFound` if the conversation does not exist.
    pub async fn reset_approvals(&self, conversation_id: &str) -> Result<()> {
        self.archive().await?.clear_grants(conversation_id).await
    }

    /// The "always allow" grants of a conversation, by tool name.
    pub async fn approval_grants(&self, conversation_id: &str) -> Result<Vec<Grant>> {
        self.store.grants(conversation_id).await
    }
}

/// Adds to the turn's state a grant for each tool approved "always" (one per
/// tool, from the first call that decided it): the tool runs without asking
/// from now on, and the grant is written with the turn's next step commit.
pub(super) fn note_grants<'a>(
    state: &mut TurnState,
    pending: &PendingTurn,
    always: impl IntoIterator<Item = &'a ToolCall>,
    now: f64,
) {
    for call in always {
        if state.new_grants.iter().any(|g| g.tool_name == call.name) {
            continue;
        }
        if !state.granted.contains(&call.name) {
            state.granted.push(call.name.clone());
        }
        state.new_grants.push(Grant {
            conversation_id: pending.conversation_id.clone(),
            tool_name: call.name.clone(),
            granted_at: now,
            turn_id: pending.turn_id.clone(),
            call_id: call.id.clone(),
        });
    }
}

/// Adds to `decided` the waiting calls of `pending` that no decision names
/// but whose tool an `approveAlways` names: "always allow" approves them too.
pub(super) fn approve_same_tool(pending: &PendingTurn, decided: &mut Vec<Decided>) {
    let ids: Vec<&str> = decided.iter().map(|d| d.call.id.as_str()).collect();
    let always: Vec<&str> = decided
        .iter()
        .filter(|d| d.kind == DecisionKind::ApproveAlways)
        .map(|d| d.call.name.as_str())
        .collect();
    let more: Vec<Decided> = pending
        .calls
        .iter()
        .filter(|c| always.contains(&c.tool_name.as_str()) && !ids.contains(&c.call_id.as_str()))
        .filter_map(|c| pending.step.calls.iter().find(|call| call.id == c.call_id))
        .map(|call| Decided {
            call: call.clone(),
            original_arguments: call.arguments.clone(),
            kind: DecisionKind::ApproveAlways,
            reason: None,
        })
        .collect();
    decided.extend(more);
}
