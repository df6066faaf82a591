//! A model's reasoning ("thinking") as it comes with an answer and is kept
//! with the assistant message.

use serde::Serialize;

use crate::json::from_json::FromJson;

/// One block of reasoning, in the order the model wrote it.
///
/// Anthropic signs its `thinking` blocks (`signature`) and may hide one
/// entirely (`redacted`, opaque data sent back unchanged). OpenAI-compatible
/// servers send unsigned text (`reasoning_content` or `reasoning`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningBlock {
    /// The reasoning text (empty for a redacted block).
    #[serde(default)]
    pub text: String,
    /// The provider's signature over the text, which it needs to accept the block back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// A redacted block's opaque data (its text is hidden from everyone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<String>,
}

impl ReasoningBlock {
    /// Whether a provider that checks signatures would take it back: signed, or redacted.
    pub fn is_replayable(&self) -> bool {
        self.redacted.is_some() || self.signature.as_deref().is_some_and(|s| !s.is_empty())
    }
}

/// The text of `blocks` (redacted ones have none), joined by blank lines.
pub fn reasoning_text(blocks: &[ReasoningBlock]) -> String {
    let texts: Vec<&str> = blocks
        .iter()
        .map(|b| b.text.as_str())
        .filter(|t| !t.is_empty())
        .collect();
    texts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_camel_case_without_absent_fields() {
        let block = ReasoningBlock {
            text: "hm".into(),
            signature: Some("sig".into()),
            redacted: None,
        };
        let json = serde_json::to_value(&block).unwrap();
        assert_eq!(json, serde_json::json!({"text": "hm", "signature": "sig"}));
        let back: ReasoningBlock = serde_json::from_value(serde_json::json!({"redacted": "x"})).unwrap();
        assert!(back.is_replayable() && back.text.is_empty());
        assert!(!ReasoningBlock::default().is_replayable());
    }
}
