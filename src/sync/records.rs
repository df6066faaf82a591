//! The records the sync document holds besides the stored ones
//! ([`crate::domain::Conversation`], [`crate::domain::Message`],
//! [`crate::domain::ToolCallRecord`]): each a JSON string in its map.

use serde::{Deserialize, Serialize};

/// The reader's place in a book, as the last device to move it left it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncedPosition {
    /// The page (1-based).
    pub page: u32,
    /// When it was set, ms since the epoch (the device's clock: shown, never used to merge).
    pub updated_at: f64,
    /// The device that set it.
    pub device: String,
}

/// A tool call waiting for a person, and the device whose paused turn made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncedCall {
    /// The conversation of the turn.
    pub conversation_id: String,
    /// The turn that made the call.
    pub turn_id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them (JSON text).
    pub arguments: String,
    /// The device that owns the paused turn: the only one that may run the tool.
    pub owner: String,
}

/// One device's decision on a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "camelCase", deny_unknown_fields)]
pub enum SyncedDecision {
    /// Run it as the model wrote it.
    Approve,
    /// Run it with these arguments (JSON text) instead.
    #[serde(rename_all = "camelCase")]
    Edit {
        /// The arguments to run it with.
        arguments: String,
    },
    /// Do not run it.
    #[serde(rename_all = "camelCase")]
    Reject {
        /// Why, if the person said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}
