//! A conversation's usage over all its turns, kept as each model call ends.

use serde::Serialize;

use super::Usage;
use crate::json::from_json::FromJson;

/// Tokens and cost summed over every model call of a conversation — failed,
/// aborted and paused turns included (`usage(conversationId)`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct UsageTotals {
    /// The conversation.
    pub conversation_id: String,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from the provider's cache.
    pub cached_input_tokens: u64,
    /// US dollars over the calls whose model has a price; absent when none had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Whether some counts are Lectern's estimate; absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
    /// Turns that made at least one model call.
    pub turns: u32,
}

impl UsageTotals {
    /// Zeros for `conversation_id`.
    pub fn empty(conversation_id: &str) -> Self {
        UsageTotals {
            conversation_id: conversation_id.to_owned(),
            ..UsageTotals::default()
        }
    }

    /// Adds one model call; `first_of_turn` counts a turn.
    pub fn add(&mut self, usage: &Usage, cost_usd: Option<f64>, first_of_turn: bool) {
        self.input_tokens += usage.input_tokens;
        self.output_tokens += usage.output_tokens;
        self.cached_input_tokens += usage.cached_input_tokens;
        self.estimated |= usage.estimated;
        if let Some(cost) = cost_usd {
            self.cost_usd = Some(self.cost_usd.unwrap_or(0.0) + cost);
        }
        self.turns += u32::from(first_of_turn);
    }

    /// Input plus output tokens.
    pub fn tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

/// One model call's usage to add to its conversation's [`UsageTotals`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallUsage {
    /// The tokens.
    pub usage: Usage,
    /// Their cost, where the model has a price.
    pub cost_usd: Option<f64>,
    /// The first call of a turn.
    pub first_of_turn: bool,
}
