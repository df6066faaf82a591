//! What a turn carries from step to step — kept in memory while it runs, and
//! stored with a paused turn so it can go on after a reload.

use serde::Serialize;

use super::{Grant, Mention, ToolCallRecord, Usage};
use crate::json::from_json::FromJson;

/// What a new message does to a conversation's turn waiting for approval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub enum OnNewMessage {
    /// Refuse the message (`ApprovalPending`) until the turn is resolved or cancelled.
    #[default]
    Refuse,
    /// Answer the waiting calls "The user moved on without approving", close
    /// the turn, and run the new message as usual.
    Reject,
}

/// A `send`'s own approval settings, over the instance's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalOverrides {
    /// Approve every `ask` in this turn (`true`), or ask even if the instance auto-approves (`false`).
    #[serde(default)]
    pub auto_approve: Option<bool>,
    /// What this message does to a turn waiting for approval.
    #[serde(default)]
    pub on_new_message: Option<OnNewMessage>,
}

/// Per-turn changes to the configuration (headless runs, `send`'s `approvals`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct TurnOverrides {
    /// Treat every `ask` policy as approved.
    pub auto_approve: bool,
    /// Offer only these tools (within those the configuration allows).
    pub tools: Option<Vec<String>>,
    /// Model calls allowed in this turn, instead of the configured limit.
    pub max_iterations: Option<u32>,
    /// Time allowed for this turn, instead of the configured limit.
    pub turn_timeout_ms: Option<u64>,
    /// The most tokens each answer of this turn may have (`send`'s
    /// `maxOutputTokens`), over the persona's and the model profile's.
    #[serde(default)]
    pub max_output_tokens: Option<u32>,
    /// The most tokens of book passages this turn reads (`send`'s
    /// `maxContextTokens`), instead of `retrieval.maxContextTokens`: its
    /// system message's passages and each `search_book` result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_context_tokens: Option<u32>,
    /// The spend limit of this turn (`send`'s `budget`), instead of the configured one.
    #[serde(default)]
    pub budget: Option<super::Budget>,
    /// This turn's approval settings (`send`'s `approvals`), kept by a paused turn.
    #[serde(default)]
    pub approvals: ApprovalOverrides,
    /// The JSON Schema this turn's answer must match (`send`'s `responseSchema`), kept by a paused turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<super::ResponseFormat>,
    /// The model this turn asks instead of the configured one (`send`'s
    /// `model`), kept by a paused turn; its usage is priced as that model's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Nobody can answer an approval (a one-shot turn, which keeps nothing to
    /// resume): a call whose policy is `ask` is refused instead of pausing the turn.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refuse_asks: bool,
}

/// The turn so far: counters, usage, tool-call records, and the inputs of its system message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct TurnState {
    /// Model calls made.
    pub steps: u32,
    /// Tool calls asked for (run or not).
    pub tool_calls: u32,
    /// Tokens used.
    pub usage: Usage,
    /// Every settled tool call, in the order it settled.
    pub records: Vec<ToolCallRecord>,
    /// The tenant of the turn.
    pub user_id: Option<String>,
    /// Mentions of the user's message with their resolved text.
    pub mentions: Vec<(Mention, String)>,
    /// The book passages of the system message (the reader's pages and what
    /// `alwaysRetrieve` found), formatted as the model reads them.
    pub passages: Option<String>,
    /// The same passages, one record each, for the answer's sources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<super::Source>,
    /// Changes to the configuration for this turn.
    pub overrides: TurnOverrides,
    /// The revision of the turn's paused record as last written, once the
    /// turn has paused and been resumed: a later pause must follow it.
    #[serde(default)]
    pub paused_revision: Option<u32>,
    /// Tools a person allowed for the whole conversation ("always allow"):
    /// their `ask` policy counts as `auto`. Read from the store at turn start.
    #[serde(default)]
    pub granted: Vec<String>,
    /// What each model request of the turn sent off the device.
    #[serde(default)]
    pub egress: Vec<super::EgressEntry>,
    /// The cost in USD of the turn's latest model call, where the price is
    /// known: the step its tool calls' records are stamped with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_cost_usd: Option<f64>,
    /// Grants given in this turn and not stored yet: written with the next step commit.
    #[serde(skip)]
    pub new_grants: Vec<Grant>,
    /// Answer text streamed by a model call that then failed (not stored).
    #[serde(skip)]
    pub partial_text: Option<String>,
}
