//! `validateConfig()`: every rule an agent configuration breaks, and what
//! in it is likely a mistake, checked against the registered tools without
//! calling a model.

use serde::Serialize;

use super::compress::summary_room;
use super::config::AgentConfig;
use super::context::ContextStrategy;
use super::option_rules::broken_rules;
use super::prompts::SUMMARIZE_PROMPT;
use crate::provider::{ProviderConfig, ProviderKind};
use crate::tool::ToolRegistry;

/// The outcome of `validateConfig()`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigReport {
    /// No errors.
    pub valid: bool,
    /// What would make turns fail.
    pub errors: Vec<String>,
    /// What is likely a mistake.
    pub warnings: Vec<String>,
}

/// Checks the configuration against the registered tools, calling no model.
pub fn validate_config(
    provider: &ProviderConfig,
    config: &AgentConfig,
    tools: &ToolRegistry,
) -> ConfigReport {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    if let Err(e) = provider.validate() {
        errors.push(e.to_string());
    }
    check_api_key(provider, &mut errors, &mut warnings);
    let max_temperature = if matches!(provider.kind, ProviderKind::Anthropic(_)) {
        1.0
    } else {
        2.0
    };
    for (layer, t) in [
        ("persona", config.persona.temperature),
        ("modelProfile", config.model_profile.temperature),
    ] {
        if let Some(t) = t {
            if !(0.0..=max_temperature).contains(&t) {
                errors.push(format!(
                    "{layer}.temperature must be within 0..={max_temperature}, got {t}"
                ));
            }
        }
    }
    for (layer, names) in [
        ("toolShell.allowedTools", &config.tool_shell.allowed_tools),
        ("persona.tools", &config.persona.tools),
    ] {
        for name in names.iter().flatten() {
            if !tools.contains(name) {
                errors.push(format!("{layer} names {name:?}, which is not a registered tool"));
            }
        }
    }
    match &config.persona.system_prompt {
        Some(text) if text.trim().is_empty() => warnings.push("persona.systemPrompt is empty".into()),
        Some(_) => {}
        None => match config.prompts.template(config.prompt_name()) {
            Ok(text) if text.trim().is_empty() => {
                warnings.push(format!("prompt {:?} is empty", config.prompt_name()))
            }
            Ok(_) => {}
            Err(e) => errors.push(e.to_string()),
        },
    }
    errors.extend(broken_rules(config));
    check_tool_result_cap(config, &mut warnings);
    check_output_tokens(config, &mut errors);
    check_summarize(config, &mut errors, &mut warnings);
    check_budgets(provider, config, &mut warnings);
    if let Some(max_tokens) = config.context.max_tokens() {
        if let Some(window) = config.model_profile.context_length {
            if max_tokens > window {
                warnings.push(format!(
                    "context.maxTokens ({max_tokens}) exceeds modelProfile.contextLength ({window})"
                ));
            }
        }
    }
    ConfigReport {
        valid: errors.is_empty(),
        errors,
        warnings,
    }
}

/// A key where the provider needs one (OpenAI's API, Anthropic); a warning
/// where none is set for a server that may not need one.
fn check_api_key(provider: &ProviderConfig, errors: &mut Vec<String>, warnings: &mut Vec<String>) {
    let (needs_key, has_key) = match &provider.kind {
        ProviderKind::Openai(s) => (
            s.base_url.contains("api.openai.com"),
            s.api_key.as_deref().is_some_and(|k| !k.is_empty()),
        ),
        ProviderKind::Anthropic(s) => (true, s.api_key.as_deref().is_some_and(|k| !k.is_empty())),
        ProviderKind::Custom(_) | ProviderKind::Quotes(_) => (false, true),
    };
    if needs_key && !has_key {
        errors.push("provider.apiKey is missing (this provider needs one)".into());
    } else if !has_key {
        warnings.push("provider.apiKey is not set; fine for local servers that need none".into());
    }
}

/// `budget` and `budgetPeriod`: positive limits, and a price for a cost limit.
fn check_budgets(provider: &ProviderConfig, config: &AgentConfig, warnings: &mut Vec<String>) {
    for (name, budget) in [
        ("budget", &config.budget),
        ("budgetPeriod", &config.budget_period),
    ] {
        if budget.max_cost_usd.is_some() && config.prices.price(provider.model()).is_none() {
            warnings.push(format!(
                "{name}.maxCostUsd is set but model {:?} has no price in prices: the cost limit is not checked",
                provider.model()
            ));
        }
    }
}

/// `maxOutputTokens` of the persona and the model profile: at least 1, and
/// less than `modelProfile.contextLength` (the prompt needs room too).
fn check_output_tokens(config: &AgentConfig, errors: &mut Vec<String>) {
    for (layer, max) in [
        ("persona", config.persona.max_output_tokens),
        ("modelProfile", config.model_profile.max_output_tokens),
    ] {
        let Some(max) = max else { continue };
        if max == 0 {
            errors.push(format!("{layer}.maxOutputTokens must be at least 1"));
        } else if let Some(window) = config.model_profile.context_length.filter(|w| max as usize >= *w) {
            errors.push(format!(
                "{layer}.maxOutputTokens ({max}) must be less than modelProfile.contextLength ({window})"
            ));
        }
    }
}

/// `context: { strategy: 'summarize' }` needs its prompt, and a budget that
/// leaves the summary some room.
fn check_summarize(config: &AgentConfig, errors: &mut Vec<String>, warnings: &mut Vec<String>) {
    let ContextStrategy::Summarize { max_tokens, .. } = config.context else {
        return;
    };
    match config.prompts.template(SUMMARIZE_PROMPT) {
        Ok(text) if text.trim().is_empty() => errors.push(format!(
            "prompt {SUMMARIZE_PROMPT:?} is empty: context strategy 'summarize' needs it"
        )),
        Ok(_) => {}
        Err(e) => errors.push(e.to_string()),
    }
    if max_tokens < 1_000 {
        warnings.push(format!(
            "context.maxTokens ({max_tokens}) is small for 'summarize': the summary gets at most {} tokens",
            summary_room(max_tokens)
        ));
    }
}

/// The `validateConfig` warning for an instance with books whose custom
/// prompt (persona text or a template the host gave) lacks `{{book_context}}`:
/// the reading rules are then added after it rather than placed by it.
pub fn book_context_warning(config: &AgentConfig) -> Option<String> {
    let (what, text) = match &config.persona.system_prompt {
        Some(text) => ("persona.systemPrompt".to_owned(), text.as_str()),
        None if config.prompts.is_built_in(config.prompt_name()) => return None,
        None => (
            format!("prompt {:?}", config.prompt_name()),
            config.prompts.template(config.prompt_name()).ok()?,
        ),
    };
    let placed = super::prompts::placeholders(text).any(|name| name == "book_context");
    (!placed).then(|| {
        format!(
            "{what} has no {{{{book_context}}}}: in book conversations the reading rules (answer only up to the \
             reader's page) are added after it"
        )
    })
}

/// `maxToolResultChars`: at least 1; small values and values past the token
/// budget (about four characters a token) are likely mistakes.
fn check_tool_result_cap(config: &AgentConfig, warnings: &mut Vec<String>) {
    let max = config.max_tool_result_chars;
    if (1..1_000).contains(&max) {
        warnings.push(format!(
            "maxToolResultChars ({max}) is small: the model sees little of each tool result"
        ));
    }
    if let Some(max_tokens) = config.context.max_tokens() {
        if max / 4 > max_tokens {
            warnings.push(format!(
                "maxToolResultChars ({max}, about {} tokens) exceeds context.maxTokens ({max_tokens}): one tool result can crowd out the history",
                max / 4
            ));
        }
    }
}
