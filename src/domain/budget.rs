//! A spend limit (`budget`, `budgetPeriod`); the agent checks it.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::json::from_json::FromJson;

/// A spend limit: tokens (input + output) and/or US dollars.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Budget {
    /// The most US dollars (needs the model's price in `prices`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// The most tokens, input and output together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
}

impl Budget {
    /// Whether it limits anything.
    pub fn is_set(&self) -> bool {
        self.max_cost_usd.is_some() || self.max_tokens.is_some()
    }

    /// `ConfigError` for a limit that is not a positive number.
    pub fn check_values(&self, name: &str) -> Result<()> {
        if self.max_tokens == Some(0) || self.max_cost_usd.is_some_and(|c| !(c > 0.0 && c.is_finite())) {
            return Err(Error::config(format!(
                "{name}: maxTokens and maxCostUsd must be positive numbers"
            )));
        }
        Ok(())
    }
}
