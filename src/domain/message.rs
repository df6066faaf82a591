//! A message in a conversation, as stored and as replayed to the model.

use serde::Serialize;

use super::{Quoted, ReasoningBlock, Source, SourceCheck, ToolCall};
use crate::json::from_json::FromJson;

/// Who a message comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, FromJson)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions for the model.
    System,
    /// The person using the host application.
    User,
    /// The model.
    Assistant,
    /// The result of a tool the model called.
    ToolResult,
}

/// One stored message.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Unique, time-ordered id.
    pub id: String,
    /// The conversation this message belongs to.
    pub conversation_id: String,
    /// Position in the conversation, assigned by the store (0, 1, 2, ...).
    pub seq: u32,
    /// Who the message comes from.
    pub role: Role,
    /// The text (for tool results, the result as the model sees it).
    pub content: String,
    /// Tool calls an assistant message asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a `tool_result`, the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at: f64,
    /// Set on an assistant answer cut short by an abort: the text is what had streamed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// An assistant message's reasoning, kept to send back where the provider
    /// needs it; `messages()` shows it only with `showThinking`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasoning: Vec<ReasoningBlock>,
    /// An answer's sources: the book passages it was given, in book order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Source>,
    /// An answer with sources, checked against them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_check: Option<SourceCheck>,
    /// Set on an answer made of the book's own words (the `quotes` provider, or a model's fallback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quoted: Option<Quoted>,
}

impl Message {
    /// A message with no tool calls, ready to be appended (the store assigns `seq`).
    pub fn new(
        id: String,
        conversation_id: &str,
        role: Role,
        content: impl Into<String>,
        created_at: f64,
    ) -> Self {
        Message {
            id,
            conversation_id: conversation_id.to_owned(),
            seq: 0,
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            created_at,
            interrupted: false,
            reasoning: Vec::new(),
            sources: Vec::new(),
            source_check: None,
            quoted: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_serialise_as_the_documented_strings() {
        let roles = [Role::User, Role::Assistant, Role::ToolResult, Role::System];
        let json = serde_json::to_string(&roles).unwrap();
        assert_eq!(json, r#"["user","assistant","tool_result","system"]"#);
    }

    #[test]
    fn message_fields_are_camel_case_and_optional_fields_omitted() {
        let m = Message::new("m1".into(), "c1", Role::User, "hi", 5.0);
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["conversationId"], "c1");
        assert_eq!(json["createdAt"], 5.0);
        assert!(json.get("toolCalls").is_none());
        assert!(json.get("toolCallId").is_none());
        assert!(json.get("reasoning").is_none());
    }

    #[test]
    fn a_message_stored_before_reasoning_existed_still_loads() {
        let old = r#"{"id":"m","conversationId":"c","seq":1,"role":"assistant","content":"x","createdAt":1}"#;
        let message: Message = serde_json::from_str(old).unwrap();
        assert!(message.reasoning.is_empty());
    }
}
