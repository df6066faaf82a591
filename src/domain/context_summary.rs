//! The stored summary of a conversation's older messages (the `summarize`
//! context strategy): computed once, then extended as history grows.

use serde::Serialize;

use crate::json::from_json::FromJson;

/// What the model was told about the messages that no longer fit its
/// context, and how far that goes.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct ContextSummary {
    /// The conversation.
    pub conversation_id: String,
    /// The summary, as the model wrote it.
    pub text: String,
    /// The `seq` of the last message it covers: later messages are sent as they are.
    pub through_seq: u32,
    /// How many messages it covers in all.
    pub summarized_messages: u32,
    /// When it was last extended (ms since the epoch).
    pub updated_at: f64,
}
