//! Token usage reported by a provider.

use serde::Serialize;

use crate::json::from_json::FromJson;

/// Tokens consumed by one model call, or summed over a turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from the provider's cache.
    #[serde(default)]
    pub cached_input_tokens: u64,
    /// Whether (part of) these counts were estimated by Lectern because the
    /// provider reported none (`estimate_tokens`); absent when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub estimated: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl Usage {
    /// Adds another call's usage to this one; the sum is estimated if either was.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
        self.estimated |= other.estimated;
    }
}

/// Token usage summed over a turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct TurnUsage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from cache.
    pub cached_input_tokens: u64,
    /// Cost in US dollars, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Whether some of the counts were estimated (a provider that reported no
    /// usage); absent when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub estimated: bool,
}

impl From<Usage> for TurnUsage {
    fn from(usage: Usage) -> Self {
        TurnUsage {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cached_input_tokens: usage.cached_input_tokens,
            cost_usd: None,
            estimated: usage.estimated,
        }
    }
}
