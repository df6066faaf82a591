//! `Lectern.open`'s options as data (everything but the host's functions)
//! and the rules they must keep: checked here, natively tested, whatever
//! reads them.

use std::rc::Rc;

use super::option_rules::broken_rules;
use super::prompts::PromptLibrary;
use super::{
    AgentConfig, Budget, ContextStrategy, ModelProfile, Persona, QuoteAnswers, RunLimits, ToolShell,
};
use crate::approval::{ApprovalOptions, PolicyRule};
use crate::domain::SortedMap;
use crate::error::{Error, Result};
use crate::json::from_json::FromJson;
use crate::provider::{PriceTable, ProviderConfig, ProviderKind};
use crate::retrieval::books_settings::BooksSettings;
use crate::retrieval::config::{EmbedderConfig, RetrievalSettings};
use crate::retrieval::reader::context::{MAX_PASSAGES, MAX_READER_PAGES};
use crate::tool::builtin::{check_builtin_tools, WeatherSettings};

/// Which host functions came with the options (taken out before parsing).
#[derive(Debug, Clone, Copy, Default)]
pub struct HostFunctions {
    /// `provider.call` was given.
    pub provider_call: bool,
    /// `embedder.embed` was given.
    pub embed: bool,
}

/// The serialisable part of the options (everything but the functions).
#[derive(Debug, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenOptions {
    /// IndexedDB database name; without it, conversations live in memory only.
    #[serde(default)]
    pub db_name: Option<String>,
    /// How long opening `db_name` waits for other tabs that block its schema
    /// upgrade before rejecting with a `blocked` `StorageError` (ms, default 5000).
    #[serde(default)]
    pub blocked_timeout_ms: Option<u64>,
    /// The model provider.
    pub provider: ProviderConfig,
    /// Prompt, temperature and tools of the assistant.
    #[serde(default)]
    pub persona: Persona,
    /// Context length and default temperature of the model.
    #[serde(default)]
    pub model_profile: ModelProfile,
    /// Which tools may be offered.
    #[serde(default)]
    pub tool_shell: ToolShell,
    /// Shorthand for `toolShell.allowedTools`.
    #[serde(default)]
    pub allowed_tools: Option<Vec<String>>,
    /// Built-in tools to register (`['current_datetime', 'current_weather']`).
    #[serde(default)]
    pub builtin_tools: Vec<String>,
    /// Where `current_weather` sends (Open-Meteo's forecast and geocoding APIs by default).
    #[serde(default)]
    pub weather: WeatherSettings,
    /// Run limits, as given: [`RunLimits::resolve`] fills in the defaults (a
    /// local provider's turn limit is longer).
    #[serde(default)]
    pub limits: Option<serde_json::Value>,
    /// Which history the model sees (default `{ strategy: 'fullHistory', maxMessages: 50 }`).
    #[serde(default)]
    pub context: ContextStrategy,
    /// Run one response's tool calls concurrently (default true).
    #[serde(default = "default_true")]
    pub parallel_tool_calls: bool,
    /// Resolve a failed `send` with `{ success: false, text, error }` instead of rejecting.
    #[serde(default)]
    pub friendly_errors: bool,
    /// Argument fields hidden in events and stored records.
    #[serde(default)]
    pub redact_arguments: Vec<String>,
    /// The tenant id every tool's context carries.
    #[serde(default)]
    pub user_id: Option<String>,
    /// Prompt templates by name, replacing or adding to `prompts/`.
    #[serde(default)]
    pub prompts: SortedMap<String, String>,
    /// Values for `{{variables}}` in prompts.
    #[serde(default)]
    pub prompt_variables: SortedMap<String, String>,
    /// The embedder for books (default: none; books are searched lexically).
    #[serde(default)]
    pub embedder: EmbedderConfig,
    /// How books are cut and how book conversations retrieve.
    #[serde(default)]
    pub retrieval: RetrievalSettings,
    /// Which tool calls need a person's approval.
    #[serde(default)]
    pub approvals: ApprovalOptions,
    /// Characters of one tool result the model reads (default 50,000).
    #[serde(default = "default_max_tool_result_chars")]
    pub max_tool_result_chars: usize,
    /// The spend limit of each turn (overridable per `send`).
    #[serde(default)]
    pub budget: Budget,
    /// The spend limit of each conversation over all its turns.
    #[serde(default)]
    pub budget_period: Budget,
    /// Ingest books in Lectern's Web Worker (default true; false: in the page, paced).
    #[serde(default = "default_true")]
    pub worker: bool,
    /// Emit `reasoningDelta` events and show stored reasoning in `messages()` (default false).
    #[serde(default)]
    pub show_thinking: bool,
    /// Keep each turn's events for `replay(turnId)` (default false).
    #[serde(default)]
    pub record_events: bool,
    /// Where the worker script is, if not `lectern_worker.js` beside `lectern.js`.
    #[serde(default)]
    pub worker_url: Option<String>,
    /// `embedder` as JSON text without `embed` (what the worker gets).
    #[serde(skip)]
    pub embedder_json: String,
    /// `retrieval` as JSON text (what the books module reads).
    #[serde(skip)]
    pub retrieval_json: String,
}

fn default_true() -> bool {
    true
}

fn default_max_tool_result_chars() -> usize {
    crate::tool::DEFAULT_MAX_RESULT_CHARS
}

impl OpenOptions {
    /// What the books module is opened with.
    pub fn books_settings(&self) -> BooksSettings {
        BooksSettings {
            db_name: self.db_name.clone(),
            blocked_timeout_ms: self.blocked_timeout_ms,
            embedder: self.embedder_json.clone(),
            retrieval: self.retrieval_json.clone(),
            worker: self.worker,
            worker_url: self.worker_url.clone(),
        }
    }

    /// The agent configuration these options and the host's policy functions describe.
    pub fn agent_config(&self, rules: Vec<(String, Rc<dyn PolicyRule>)>) -> Result<AgentConfig> {
        if self.allowed_tools.is_some() && self.tool_shell.allowed_tools.is_some() {
            return Err(Error::config(
                "give allowedTools or toolShell.allowedTools, not both",
            ));
        }
        let limits = RunLimits::resolve(self.limits.clone(), self.provider.local)?;
        check_builtin_tools(&self.builtin_tools)?;
        self.weather.check()?;
        let mut tool_shell = self.tool_shell.clone();
        if let Some(allowed) = &self.allowed_tools {
            tool_shell.allowed_tools = Some(allowed.clone());
        }
        let config = AgentConfig {
            prompts: PromptLibrary::built_in().with_overrides(self.prompts.clone()),
            persona: self.persona.clone(),
            model_profile: self.model_profile.clone(),
            tool_shell,
            limits,
            context: self.context,
            parallel_tool_calls: self.parallel_tool_calls,
            redact_arguments: self.redact_arguments.clone(),
            user_id: self.user_id.clone(),
            prompt_variables: self.prompt_variables.clone(),
            prices: PriceTable::new(self.provider.prices.clone()),
            retrieval: self.retrieval.strategy,
            max_context_tokens: self.retrieval.max_context_tokens,
            reader_pages: self.retrieval.reader_pages,
            retrieved_passages: self.retrieval.passages,
            approvals: self.approvals.config(rules)?,
            max_tool_result_chars: self.max_tool_result_chars,
            budget: self.budget,
            budget_period: self.budget_period,
            show_thinking: self.show_thinking,
            record_events: self.record_events,
            quotes: QuoteAnswers {
                always: matches!(self.provider.kind, ProviderKind::Quotes(_)),
                fallback: self.retrieval.quote_fallback,
            },
            cite_passages: self.retrieval.citations,
        };
        match broken_rules(&config).into_iter().next() {
            Some(broken) => Err(Error::config(broken)),
            None => Ok(config),
        }
    }
}

impl OpenOptions {
    /// Checks the options that the agent configuration does not hold
    /// (storage, provider, embedder, retrieval), with the host functions given.
    pub fn check(&self, host: HostFunctions) -> Result<()> {
        self.provider.validate()?;
        if self.db_name.as_deref() == Some("") {
            return Err(Error::config("dbName must not be empty"));
        }
        let is_custom = matches!(self.provider.kind, ProviderKind::Custom(_));
        match (is_custom, host.provider_call) {
            (true, false) => {
                return Err(Error::config(
                    "a custom provider needs provider.call, an async function",
                ))
            }
            (false, true) => return Err(Error::config("provider.call is only for kind: 'custom'")),
            _ => {}
        }
        match (matches!(self.embedder, EmbedderConfig::Custom(_)), host.embed) {
            (true, false) => {
                return Err(Error::config(
                    "a custom embedder needs embedder.embed, an async function",
                ))
            }
            (false, true) => return Err(Error::config("embedder.embed is only for kind: 'custom'")),
            _ => {}
        }
        if let EmbedderConfig::Hashed(hashed) = &self.embedder {
            if !(16..=8192).contains(&hashed.dimensions) {
                return Err(Error::config("embedder.dimensions must be within 16..=8192"));
            }
        }
        let r = &self.retrieval;
        if r.chunk_chars < 100 || r.overlap_chars >= r.chunk_chars || r.page_chars < 200 {
            return Err(Error::config(
                "retrieval needs chunkChars >= 100, overlapChars < chunkChars and pageChars >= 200",
            ));
        }
        if r.max_context_tokens == Some(0) {
            return Err(Error::config(
                "retrieval.maxContextTokens must be at least 1 (null for no limit)",
            ));
        }
        if r.reader_pages > MAX_READER_PAGES || !(1..=MAX_PASSAGES).contains(&r.passages) {
            return Err(Error::config(
                "retrieval.readerPages must be within 0..=4 and retrieval.passages within 1..=20",
            ));
        }
        if r.index_min_chunks < 256 {
            return Err(Error::config("retrieval.indexMinChunks must be at least 256"));
        }
        Ok(())
    }
}
