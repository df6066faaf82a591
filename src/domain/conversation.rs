//! A conversation: the container for a sequence of messages.

use serde::Serialize;

use crate::json::from_json::FromJson;

/// A stored conversation.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    /// Unique, time-ordered id.
    pub id: String,
    /// Human-readable title.
    pub title: String,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at: f64,
    /// The book this conversation is about: its turns offer `search_book`, bounded by the reader's page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book_id: Option<String>,
    /// A JSON object the host or tools keep up to date; shown to the model at every call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_state: Option<serde_json::Value>,
}

/// What the host supplies to create a conversation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewConversation {
    /// Title; defaults to "New conversation".
    #[serde(default)]
    pub title: Option<String>,
    /// Binds the conversation to a book.
    #[serde(default)]
    pub book_id: Option<String>,
}
