//! Tools the model can call: the [`Tool`] seam, the registry, argument
//! validation, the result cache and the runner that turns every failure into
//! a result the model can read.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use crate::domain::{ToolDefinition, ToolRequest};
use crate::runtime::cancel::CancelToken;

pub mod builtin;
mod cache;
mod redact;
mod registry;
mod runner;
pub mod schema;
mod truncate;

pub use cache::{CacheScope, ToolCache, DEFAULT_CACHE_ENTRIES};
pub use redact::redact_arguments;
pub use registry::ToolRegistry;
pub use runner::{prepare_call, run_tool_calls, ToolOutcome, ToolRunContext, ToolRunSettings};
pub use truncate::{cap_result, shown_part, DEFAULT_MAX_RESULT_CHARS};

/// What a tool learns about the call besides its arguments. The model can
/// never set these: they come from the host.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The conversation the turn runs in.
    pub conversation_id: String,
    /// The host's user (tenant) id, if it gave one.
    pub user_id: Option<String>,
    /// The book the conversation is about, if any.
    pub book_id: Option<String>,
    /// Trips when the turn is aborted or the tool times out.
    pub cancel: CancelToken,
    /// The most tokens of book passages a result may hold in this turn
    /// (`send`'s `maxContextTokens`); `None`: the tool's own limit (a book
    /// tool the agent registers has `retrieval.maxContextTokens`).
    pub max_context_tokens: Option<usize>,
    /// Where a tool puts a new working state for the conversation.
    pub working_state: Rc<RefCell<Option<Value>>>,
    /// The call being run (set by the runner for each call; empty outside it).
    pub call_id: String,
    /// Where a built-in tool notes the requests it sent, for the turn's egress ledger.
    pub requests: Rc<RefCell<Vec<ToolRequest>>>,
}

impl ToolContext {
    /// Replaces the conversation's working state (shown to the model at every call).
    pub fn set_working_state(&self, state: Value) {
        *self.working_state.borrow_mut() = Some(state);
    }

    /// Notes a request `tool` sent to `service` (one that got an HTTP answer:
    /// it left the device), for the turn's egress ledger.
    pub fn note_request(&self, tool: &str, service: &str, method: &str, url: &str) {
        self.requests.borrow_mut().push(ToolRequest {
            tool_name: tool.to_owned(),
            call_id: self.call_id.clone(),
            service: service.to_owned(),
            method: method.to_owned(),
            url: url.to_owned(),
        });
    }
}

/// What a tool's `execute` resolves with: a JSON result, or an error message.
pub type ToolResult = Result<Value, String>;

/// A tool: its definition for the model and the code that runs it.
pub trait Tool {
    /// Name, description and JSON Schema of the arguments.
    fn definition(&self) -> &ToolDefinition;
    /// Runs the tool with validated arguments.
    fn execute(&self, arguments: Value, context: ToolContext) -> LocalBoxFuture<'static, ToolResult>;
    /// How long one run may take; the turn's default applies when `None`.
    fn timeout_ms(&self) -> Option<u64> {
        None
    }
    /// How long a result may be reused for the same arguments; no caching when `None`.
    fn cache_ttl_ms(&self) -> Option<u64> {
        None
    }
    /// Whose calls may share a cached result (by default, one user's).
    fn cache_scope(&self) -> CacheScope {
        CacheScope::User
    }
    /// Splits a result into the text the model reads and details for the
    /// host's `toolResult` event. By default a string is read as is, anything
    /// else as JSON, with no details.
    fn present(&self, result: Value) -> (String, Option<Value>) {
        (content_of(&result), None)
    }
    /// How many times a failed or timed-out run is tried again (idempotent tools only; at most [`MAX_RETRIES`]).
    fn retries(&self) -> u32 {
        0
    }
    /// How long to wait before each retry, in ms.
    fn retry_delay_ms(&self) -> u64 {
        0
    }
    /// Whether it is a built-in tool (`builtinTools`), which a host tool may not replace.
    fn builtin(&self) -> bool {
        false
    }
    /// Whether it only reads (`registerTool({ readOnly: true })`): a headless
    /// run that ran only such tools changed nothing and ends `completed`, not
    /// `proposed`.
    fn read_only(&self) -> bool {
        false
    }
}

/// The most retries a tool may ask for.
pub const MAX_RETRIES: u32 = 5;

/// A JSON result as the text the model reads: strings as they are, the rest as JSON.
pub fn content_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A tool made of a definition and a closure, for built-in and test tools.
pub struct FnTool<F> {
    definition: ToolDefinition,
    run: F,
    timeout_ms: Option<u64>,
    cache_ttl_ms: Option<u64>,
    cache_scope: CacheScope,
    retries: (u32, u64),
    read_only: bool,
}

impl<F> FnTool<F>
where
    F: Fn(Value, ToolContext) -> LocalBoxFuture<'static, ToolResult>,
{
    /// A tool named `name` that runs `run`.
    pub fn new(name: &str, description: &str, parameters: Value, run: F) -> Self {
        FnTool {
            definition: ToolDefinition {
                name: name.to_owned(),
                description: description.to_owned(),
                parameters,
            },
            run,
            timeout_ms: None,
            cache_ttl_ms: None,
            cache_scope: CacheScope::User,
            retries: (0, 0),
            read_only: false,
        }
    }

    /// Tries a failed or timed-out run again up to `retries` times (at most
    /// [`MAX_RETRIES`]), waiting `delay_ms` before each.
    pub fn with_retries(mut self, retries: u32, delay_ms: u64) -> Self {
        self.retries = (retries.min(MAX_RETRIES), delay_ms);
        self
    }

    /// Marks it as only reading (see [`Tool::read_only`]).
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// Sets the per-run timeout.
    pub fn with_timeout_ms(mut self, ms: u64) -> Self {
        self.timeout_ms = Some(ms);
        self
    }

    /// Sets the result cache TTL.
    pub fn with_cache_ttl_ms(mut self, ms: u64) -> Self {
        self.cache_ttl_ms = Some(ms);
        self
    }

    /// Sets whose calls share cached results.
    pub fn with_cache_scope(mut self, scope: CacheScope) -> Self {
        self.cache_scope = scope;
        self
    }
}

impl<F> Tool for FnTool<F>
where
    F: Fn(Value, ToolContext) -> LocalBoxFuture<'static, ToolResult>,
{
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn execute(&self, arguments: Value, context: ToolContext) -> LocalBoxFuture<'static, ToolResult> {
        (self.run)(arguments, context)
    }

    fn timeout_ms(&self) -> Option<u64> {
        self.timeout_ms
    }

    fn cache_ttl_ms(&self) -> Option<u64> {
        self.cache_ttl_ms
    }

    fn cache_scope(&self) -> CacheScope {
        self.cache_scope
    }

    fn retries(&self) -> u32 {
        self.retries.0
    }

    fn retry_delay_ms(&self) -> u64 {
        self.retries.1
    }

    fn read_only(&self) -> bool {
        self.read_only
    }
}
