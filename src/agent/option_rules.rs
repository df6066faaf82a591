//! The rules every agent configuration keeps, whatever built it: one list,
//! which `Lectern.open` enforces (the first broken rule rejects it) and
//! `validateConfig` reports in full.

use super::{AgentConfig, ContextStrategy};
use crate::error::Error;

/// The rules `config` breaks, each as a message naming its option.
pub fn broken_rules(config: &AgentConfig) -> Vec<String> {
    let mut broken = Vec::new();
    let limits = &config.limits;
    if limits.max_iterations == 0 || limits.turn_timeout_ms == 0 || limits.tool_timeout_ms == 0 {
        broken.push("limits.maxIterations, turnTimeoutMs and toolTimeoutMs must be at least 1".to_owned());
    }
    for (name, budget) in [
        ("budget", &config.budget),
        ("budgetPeriod", &config.budget_period),
    ] {
        if let Err(Error::Config { message }) = budget.check_values(name) {
            broken.push(message);
        }
    }
    if config.max_tool_result_chars == 0 {
        broken.push("maxToolResultChars must be at least 1".to_owned());
    }
    if let ContextStrategy::FullHistory { max_messages: 0 }
    | ContextStrategy::TokenBudget { max_tokens: 0 }
    | ContextStrategy::Summarize { max_tokens: 0, .. } = config.context
    {
        broken.push("context limits must be at least 1".to_owned());
    }
    broken
}
