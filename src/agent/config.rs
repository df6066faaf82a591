//! The agent's configuration, in layers: a persona (prompt, temperature,
//! tools), a model profile (context length, default temperature), a tool shell
//! (allowed tools) and run limits. Where layers overlap, the persona wins over
//! the model profile, which wins over the built-in default.

use super::context::ContextStrategy;
use super::prompts::{PromptLibrary, DEFAULT_PROMPT};
use crate::approval::ApprovalConfig;
use crate::domain::Budget;
use crate::domain::SortedMap;
use crate::json::from_json::FromJson;
use crate::provider::PriceTable;
use crate::retrieval::config::RetrievalStrategy;
use crate::retrieval::reader::context::{DEFAULT_CONTEXT_TOKENS, DEFAULT_PASSAGES, DEFAULT_READER_PAGES};
use crate::tool::DEFAULT_MAX_RESULT_CHARS;

/// Who the assistant is: its prompt, temperature and tools.
#[derive(Debug, Clone, Default, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Persona {
    /// The system prompt text (may use `{{variables}}`); overrides `prompt`.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// The name of a prompt template (default `conversation_system_prompt`).
    #[serde(default)]
    pub prompt: Option<String>,
    /// Sampling temperature; wins over the model profile's.
    #[serde(default)]
    pub temperature: Option<f32>,
    /// The tools this persona uses (default: every allowed tool).
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    /// The most tokens one answer may have; wins over the model profile's.
    #[serde(default)]
    pub max_output_tokens: Option<u32>,
}

/// What the model can take.
#[derive(Debug, Clone, Default, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelProfile {
    /// The model's context window in tokens; bounds the token-budget strategy.
    #[serde(default)]
    pub context_length: Option<usize>,
    /// Default sampling temperature for this model.
    #[serde(default)]
    pub temperature: Option<f32>,
    /// The most tokens one answer may have; wins over the provider's `maxTokens`.
    #[serde(default)]
    pub max_output_tokens: Option<u32>,
}

/// Which tools may be offered at all.
#[derive(Debug, Clone, Default, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolShell {
    /// Only these tools are offered (default: every registered tool).
    #[serde(default)]
    pub allowed_tools: Option<Vec<String>>,
}

/// How far a turn may go.
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunLimits {
    /// Model calls per turn (default 10).
    #[serde(default = "default_max_iterations")]
    pub max_iterations: u32,
    /// Tool calls per turn (default 10).
    #[serde(default = "default_max_tool_calls")]
    pub max_tool_calls: u32,
    /// The whole turn (default 30 s).
    #[serde(default = "default_turn_timeout")]
    pub turn_timeout_ms: u64,
    /// One tool run, for tools that set no `timeoutMs` (default 10 s).
    #[serde(default = "default_tool_timeout")]
    pub tool_timeout_ms: u64,
    /// How long a `send` waits for another turn on the same conversation
    /// (default: as long as it takes).
    #[serde(default)]
    pub lock_wait_ms: Option<u64>,
}

fn default_max_iterations() -> u32 {
    10
}
fn default_max_tool_calls() -> u32 {
    10
}
fn default_turn_timeout() -> u64 {
    30_000
}
fn default_tool_timeout() -> u64 {
    10_000
}

/// `limits.turnTimeoutMs` when the provider is local (`provider.local: true`)
/// and the host set none: 10 minutes, since a model on the reader's CPU may
/// take minutes over a long prompt (the default 30 s suits a server).
pub const LOCAL_TURN_TIMEOUT_MS: u64 = 600_000;

impl RunLimits {
    /// The limits from the host's `limits` object (or none), with the local
    /// defaults where `local` and the host set nothing.
    pub fn resolve(given: Option<serde_json::Value>, local: bool) -> crate::error::Result<RunLimits> {
        use crate::error::Error;
        let mut object = match given {
            None | Some(serde_json::Value::Null) => serde_json::Map::new(),
            Some(serde_json::Value::Object(object)) => object,
            Some(other) => return Err(Error::config(format!("limits must be an object, got {other}"))),
        };
        if local {
            object
                .entry("turnTimeoutMs")
                .or_insert(LOCAL_TURN_TIMEOUT_MS.into());
        }
        FromJson::from_json(serde_json::Value::Object(object))
            .map_err(|e| Error::config(format!("invalid limits: {e}")))
    }
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            max_iterations: default_max_iterations(),
            max_tool_calls: default_max_tool_calls(),
            turn_timeout_ms: default_turn_timeout(),
            tool_timeout_ms: default_tool_timeout(),
            lock_wait_ms: None,
        }
    }
}

/// Everything that shapes a turn, resolved.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Prompt templates (built-in, plus the host's).
    pub prompts: PromptLibrary,
    /// The persona layer.
    pub persona: Persona,
    /// The model-profile layer.
    pub model_profile: ModelProfile,
    /// The tool-shell layer.
    pub tool_shell: ToolShell,
    /// Run limits.
    pub limits: RunLimits,
    /// Which history the model sees.
    pub context: ContextStrategy,
    /// Run the tool calls of one response concurrently (default true).
    pub parallel_tool_calls: bool,
    /// Argument fields hidden in events and stored records.
    pub redact_arguments: Vec<String>,
    /// The tenant id every tool's context carries (overridable per `send`).
    pub user_id: Option<String>,
    /// Values for `{{variables}}` in prompts.
    pub prompt_variables: SortedMap<String, String>,
    /// Prices for `costUsd`.
    pub prices: PriceTable,
    /// How book conversations retrieve passages.
    pub retrieval: RetrievalStrategy,
    /// `retrieval.maxContextTokens`: the most tokens of passages one retrieval
    /// adds to the prompt (none: no limit).
    pub max_context_tokens: Option<usize>,
    /// `retrieval.readerPages`: the reader's page and the ones before it, this
    /// many in all, always in a book conversation's system message (default 2).
    pub reader_pages: u32,
    /// `retrieval.passages`: passages `alwaysRetrieve` searches for (default 10).
    pub retrieved_passages: usize,
    /// Which tool calls need a person's approval, at first: `Agent::set_approvals` replaces it at run time
    /// (read the one in force with `Agent::approvals`).
    pub approvals: ApprovalConfig,
    /// Characters of one tool result the model reads (default 50,000); the
    /// rest is cut with a note, and the tool-call record keeps it whole.
    pub max_tool_result_chars: usize,
    /// The spend limit of each turn (overridable per `send`).
    pub budget: Budget,
    /// The spend limit of each conversation over all its turns.
    pub budget_period: Budget,
    /// `showThinking`: emit `reasoningDelta` events and return stored
    /// reasoning from `messages()` (default false: reasoning is kept only to
    /// send back where the provider needs it).
    pub show_thinking: bool,
    /// `recordEvents`: keep each turn's events in the store for `replay`.
    pub record_events: bool,
    /// When a book question is answered with the book's own words.
    pub quotes: QuoteAnswers,
    /// `retrieval.citations`: number the system message's passages and ask for citations.
    pub cite_passages: bool,
}

/// When a book conversation's answer is quotes from its passages
/// (`retrieval::quotes`) instead of a model's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuoteAnswers {
    /// Always: the provider is `{ kind: 'quotes' }`.
    pub always: bool,
    /// When the model fails before it wrote anything (`retrieval.quoteFallback`, default true).
    pub fallback: bool,
}

impl Default for QuoteAnswers {
    fn default() -> Self {
        QuoteAnswers {
            always: false,
            fallback: true,
        }
    }
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            prompts: PromptLibrary::built_in(),
            persona: Persona::default(),
            model_profile: ModelProfile::default(),
            tool_shell: ToolShell::default(),
            limits: RunLimits::default(),
            context: ContextStrategy::default(),
            parallel_tool_calls: true,
            redact_arguments: Vec::new(),
            user_id: None,
            prompt_variables: SortedMap::new(),
            prices: PriceTable::default(),
            retrieval: RetrievalStrategy::default(),
            max_context_tokens: Some(DEFAULT_CONTEXT_TOKENS),
            reader_pages: DEFAULT_READER_PAGES,
            retrieved_passages: DEFAULT_PASSAGES,
            approvals: ApprovalConfig::default(),
            max_tool_result_chars: DEFAULT_MAX_RESULT_CHARS,
            budget: Budget::default(),
            budget_period: Budget::default(),
            show_thinking: false,
            record_events: false,
            quotes: QuoteAnswers::default(),
            cite_passages: true,
        }
    }
}

impl AgentConfig {
    /// The temperature sent: persona, then model profile, then the provider's own default.
    pub fn temperature(&self) -> Option<f32> {
        self.persona.temperature.or(self.model_profile.temperature)
    }

    /// The most tokens of book passages a turn reads: the turn's (`send`'s
    /// `maxContextTokens`), else `retrieval.maxContextTokens`; `None`: no limit.
    pub fn passage_budget(&self, overrides: &crate::domain::TurnOverrides) -> Option<usize> {
        (overrides.max_context_tokens.map(|n| n as usize)).or(self.max_context_tokens)
    }

    /// The `max_tokens` sent: the turn's (`send`), then the persona's, then the
    /// model profile's; `None` leaves it to the provider's setting and default.
    pub fn max_output_tokens(&self, overrides: &crate::domain::TurnOverrides) -> Option<u32> {
        overrides
            .max_output_tokens
            .or(self.persona.max_output_tokens)
            .or(self.model_profile.max_output_tokens)
    }

    /// Whether a tool may be offered: allowed by the tool shell and used by the persona.
    pub fn offers(&self, tool: &str) -> bool {
        let listed =
            |list: &Option<Vec<String>>| list.as_ref().is_none_or(|names| names.iter().any(|n| n == tool));
        listed(&self.tool_shell.allowed_tools) && listed(&self.persona.tools)
    }

    /// The prompt template name used when the persona gives no text.
    pub fn prompt_name(&self) -> &str {
        self.persona.prompt.as_deref().unwrap_or(DEFAULT_PROMPT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_local_provider_gets_a_longer_turn_unless_the_host_set_one() {
        assert_eq!(RunLimits::resolve(None, false).unwrap(), RunLimits::default());
        assert_eq!(RunLimits::default().turn_timeout_ms, 30_000);
        let local = RunLimits::resolve(None, true).unwrap();
        assert_eq!(local.turn_timeout_ms, LOCAL_TURN_TIMEOUT_MS);
        assert_eq!(local.tool_timeout_ms, RunLimits::default().tool_timeout_ms);
        let set =
            RunLimits::resolve(Some(json!({"turnTimeoutMs": 45_000, "maxIterations": 3})), true).unwrap();
        assert_eq!((set.turn_timeout_ms, set.max_iterations), (45_000, 3));
        let other = RunLimits::resolve(Some(json!({"maxToolCalls": 2})), true).unwrap();
        assert_eq!(
            (other.turn_timeout_ms, other.max_tool_calls),
            (LOCAL_TURN_TIMEOUT_MS, 2)
        );
    }

    #[test]
    fn bad_limits_are_config_errors() {
        let unknown = RunLimits::resolve(Some(json!({"turnTimeout": 5})), true).unwrap_err();
        assert_eq!(unknown.name(), "ConfigError");
        assert!(unknown.to_string().contains("turnTimeout"), "{unknown}");
        let not_object = RunLimits::resolve(Some(json!(5)), false).unwrap_err();
        assert!(
            not_object.to_string().contains("limits must be an object"),
            "{not_object}"
        );
    }
}
