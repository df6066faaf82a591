//! `Lectern.open(options)`: reading and checking what the host passed.

use std::collections::BTreeMap;

use js_sys::{Function, Object, Reflect};
use serde::Deserialize;
use wasm_bindgen::{JsCast, JsValue};

use super::approval_options::{take_policy_functions, ApprovalOptions};
use super::js::from_js;
use crate::agent::prompts::PromptLibrary;
use crate::agent::{AgentConfig, Budget, ContextStrategy, ModelProfile, Persona, RunLimits, ToolShell};
use crate::error::{Error, Result};
use crate::provider::{PriceTable, ProviderConfig, ProviderKind};
use crate::retrieval::config::{EmbedderConfig, RetrievalSettings};
use crate::retrieval::reader_context::{MAX_PASSAGES, MAX_READER_PAGES};

/// The serialisable part of the options (everything but the functions).
#[derive(Debug, Deserialize)]
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
    /// Built-in tools to register (`['current_datetime']`).
    #[serde(default)]
    pub builtin_tools: Vec<String>,
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
    pub prompts: BTreeMap<String, String>,
    /// Values for `{{variables}}` in prompts.
    #[serde(default)]
    pub prompt_variables: BTreeMap<String, String>,
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
}

fn default_true() -> bool {
    true
}

fn default_max_tool_result_chars() -> usize {
    crate::tool::DEFAULT_MAX_RESULT_CHARS
}

impl OpenOptions {
    /// The agent configuration these options and the host's policy functions describe.
    pub fn agent_config(&self, policy_functions: Vec<(String, Function)>) -> Result<AgentConfig> {
        if self.allowed_tools.is_some() && self.tool_shell.allowed_tools.is_some() {
            return Err(Error::config(
                "give allowedTools or toolShell.allowedTools, not both",
            ));
        }
        let limits = RunLimits::resolve(self.limits.clone(), self.provider.local)?;
        if limits.max_iterations == 0 || limits.turn_timeout_ms == 0 || limits.tool_timeout_ms == 0 {
            return Err(Error::config(
                "limits.maxIterations, turnTimeoutMs and toolTimeoutMs must be at least 1",
            ));
        }
        self.budget.check_values("budget")?;
        self.budget_period.check_values("budgetPeriod")?;
        super::builtin_tools::check_builtin_tools(&self.builtin_tools)?;
        if self.max_tool_result_chars == 0 {
            return Err(Error::config("maxToolResultChars must be at least 1"));
        }
        match self.context {
            ContextStrategy::FullHistory { max_messages: 0 }
            | ContextStrategy::TokenBudget { max_tokens: 0 }
            | ContextStrategy::Summarize { max_tokens: 0, .. } => {
                return Err(Error::config("context limits must be at least 1"));
            }
            _ => {}
        }
        let mut tool_shell = self.tool_shell.clone();
        if let Some(allowed) = &self.allowed_tools {
            tool_shell.allowed_tools = Some(allowed.clone());
        }
        Ok(AgentConfig {
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
            approvals: self.approvals.config(policy_functions)?,
            max_tool_result_chars: self.max_tool_result_chars,
            budget: self.budget,
            budget_period: self.budget_period,
            show_thinking: self.show_thinking,
            record_events: self.record_events,
        })
    }
}

/// The host functions among the options.
#[derive(Default)]
pub struct Callbacks {
    /// `onEvent`.
    pub on_event: Option<Function>,
    /// `provider.call`, for a custom provider.
    pub provider_call: Option<Function>,
    /// `resolveMention`.
    pub resolve_mention: Option<Function>,
    /// `embedder.embed`, for a custom embedder.
    pub embed: Option<Function>,
    /// Policy functions of `approvals.tools`, by tool name.
    pub policy_functions: Vec<(String, Function)>,
}

/// Takes the function at `key` out of `object` (a copy), if there is one.
fn take_function(object: &Object, key: &str) -> Result<Option<Function>> {
    let name = JsValue::from_str(key);
    let value = Reflect::get(object, &name).unwrap_or(JsValue::UNDEFINED);
    let _ = Reflect::delete_property(object, &name);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<Function>()
        .map(Some)
        .map_err(|_| Error::config(format!("{key} must be a function")))
}

/// Splits the host's options into the serialisable part and the callbacks.
pub fn read_options(options: &JsValue) -> Result<(OpenOptions, Callbacks)> {
    if !options.is_object() {
        return Err(Error::config("Lectern.open needs an options object"));
    }
    let copy = Object::assign(&Object::new(), options.unchecked_ref());
    let mut callbacks = Callbacks {
        on_event: take_function(&copy, "onEvent")?,
        resolve_mention: take_function(&copy, "resolveMention")?,
        provider_call: None,
        embed: None,
        policy_functions: take_policy_functions(&copy)?,
    };
    let embedder = Reflect::get(&copy, &"embedder".into()).unwrap_or(JsValue::UNDEFINED);
    if embedder.is_object() {
        let embedder = Object::assign(&Object::new(), embedder.unchecked_ref());
        callbacks.embed = take_function(&embedder, "embed")
            .map_err(|_| Error::config("embedder.embed must be a function"))?;
        let _ = Reflect::set(&copy, &"embedder".into(), &embedder);
    }
    let provider = Reflect::get(&copy, &"provider".into()).unwrap_or(JsValue::UNDEFINED);
    if provider.is_object() {
        let provider = Object::assign(&Object::new(), provider.unchecked_ref());
        callbacks.provider_call = take_function(&provider, "call")
            .map_err(|_| Error::config("provider.call must be a function"))?;
        let _ = Reflect::set(&copy, &"provider".into(), &provider);
    }
    let embedder_json =
        js_sys::JSON::stringify(&Reflect::get(&copy, &"embedder".into()).unwrap_or(JsValue::UNDEFINED))
            .ok()
            .and_then(|text| text.as_string())
            .unwrap_or_else(|| r#"{"kind":"none"}"#.to_owned());
    let mut parsed: OpenOptions = from_js(copy.into(), "Lectern.open options")?;
    parsed.embedder_json = embedder_json;
    parsed.provider.validate()?;
    if parsed.db_name.as_deref() == Some("") {
        return Err(Error::config("dbName must not be empty"));
    }
    let is_custom = matches!(parsed.provider.kind, ProviderKind::Custom(_));
    match (is_custom, callbacks.provider_call.is_some()) {
        (true, false) => {
            return Err(Error::config(
                "a custom provider needs provider.call, an async function",
            ))
        }
        (false, true) => return Err(Error::config("provider.call is only for kind: 'custom'")),
        _ => {}
    }
    match (
        matches!(parsed.embedder, EmbedderConfig::Custom(_)),
        callbacks.embed.is_some(),
    ) {
        (true, false) => {
            return Err(Error::config(
                "a custom embedder needs embedder.embed, an async function",
            ))
        }
        (false, true) => return Err(Error::config("embedder.embed is only for kind: 'custom'")),
        _ => {}
    }
    let r = &parsed.retrieval;
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
    Ok((parsed, callbacks))
}
