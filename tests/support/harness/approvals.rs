//! Approval fixtures: policy configurations, decisions, and the file-tool
//! [`World`] of the human-in-the-loop tests, whose "pages" (agents over one
//! store, model and clock) stand for reloads.

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::AgentConfig;
use lectern::approval::{
    ApprovalConfig, ApprovalDecision, ApprovalPolicy, DecisionKind, PolicyContext, PolicyRule, ToolPolicy,
};
use lectern::domain::{Message, Role};
use lectern::provider::scripted::ScriptedModel;
use lectern::provider::scripted::ScriptedTurn;
use lectern::runtime::time::ManualClock;
use lectern::storage::{MemoryStore, Store};
use lectern::tool::{FnTool, Tool, ToolResult};
use serde_json::{json, Value};

use super::test_agent::tool_results_of;
use super::{Builder, TestAgent};

/// An approval configuration (default TTL) with a fixed policy per tool.
pub fn fixed_policies(policies: &[(&str, ApprovalPolicy)]) -> ApprovalConfig {
    let mut config = ApprovalConfig::default();
    for (tool, policy) in policies {
        config.tools.insert((*tool).into(), ToolPolicy::Fixed(*policy));
    }
    config
}

/// The agent configuration that only sets `approvals`.
pub fn with_approvals(approvals: ApprovalConfig) -> AgentConfig {
    AgentConfig {
        approvals,
        ..AgentConfig::default()
    }
}

/// A decision on one call, with no arguments and no reason.
pub fn decide(call_id: &str, decision: DecisionKind) -> ApprovalDecision {
    ApprovalDecision {
        call_id: call_id.into(),
        decision,
        arguments: None,
        reason: None,
    }
}

/// Approves one call as it is.
pub fn approve(call_id: &str) -> ApprovalDecision {
    decide(call_id, DecisionKind::Approve)
}

/// Approves one call with other arguments.
pub fn edit(call_id: &str, arguments: Value) -> ApprovalDecision {
    ApprovalDecision {
        arguments: Some(arguments),
        ..decide(call_id, DecisionKind::Edit)
    }
}

/// The file tools' schema: a `path`, and for writes a `text`.
pub fn file_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "path": { "type": "string" }, "text": { "type": "string" } },
        "required": ["path"],
        "additionalProperties": false
    })
}

/// The `file` tool's rule: writes (a call with `text`) ask, reads run.
pub struct WritesAsk;

impl PolicyRule for WritesAsk {
    fn decide(
        &self,
        arguments: &Value,
        _: &PolicyContext,
    ) -> LocalBoxFuture<'static, Result<ApprovalPolicy, String>> {
        let policy = if arguments.get("text").is_some() {
            ApprovalPolicy::Ask
        } else {
            ApprovalPolicy::Auto
        };
        Box::pin(async move { Ok(policy) })
    }
}

/// The file tools' policies, approvals lasting a minute: `write_file` asks,
/// `delete_file` is denied, `file` asks for writes ([`WritesAsk`]), and
/// `read_file` runs.
pub fn approvals() -> ApprovalConfig {
    let mut config = ApprovalConfig {
        ttl_ms: 60_000,
        ..ApprovalConfig::default()
    };
    config
        .tools
        .insert("write_file".into(), ToolPolicy::Fixed(ApprovalPolicy::Ask));
    config
        .tools
        .insert("delete_file".into(), ToolPolicy::Fixed(ApprovalPolicy::Deny));
    config
        .tools
        .insert("file".into(), ToolPolicy::Rule(Rc::new(WritesAsk)));
    config
}

/// Every run of a tool: (name, arguments).
pub type Runs = Rc<RefCell<Vec<(String, Value)>>>;

/// A tool named `name` ([`file_schema`]) that records each run in `runs`
/// and answers `{"ok": <path>}` at once.
pub fn file_tool(name: &'static str, runs: Runs) -> impl Tool {
    FnTool::new(name, "A file tool", file_schema(), move |args: Value, _| {
        runs.borrow_mut().push((name.to_owned(), args.clone()));
        Box::pin(async move { Ok(json!({ "ok": args["path"] })) }) as LocalBoxFuture<'static, ToolResult>
    })
}

/// A page: an agent over the world's store, model and clock, in its conversation.
pub type Page = TestAgent;

/// A store, model and clock shared by pages, whose file tools (`read_file`,
/// `write_file`, `delete_file`, `file`) record their runs; a second page over
/// the same store stands for a reload.
pub struct World {
    /// Makes pages: the shared store, model and clock, the file tools, the conversation.
    pages: Builder,
    /// The shared store.
    pub store: Rc<MemoryStore>,
    /// The shared scripted model.
    pub model: Rc<ScriptedModel>,
    /// The shared clock.
    pub clock: ManualClock,
    /// Every run of a file tool, over every page.
    pub runs: Runs,
    /// The conversation every page talks in.
    pub conversation: String,
}

impl World {
    /// A world whose model plays `turns`, with a conversation made by a page
    /// under [`approvals`].
    pub fn new(turns: Vec<ScriptedTurn>) -> World {
        let runs = Runs::default();
        let tools: Vec<Rc<dyn Tool>> = ["read_file", "write_file", "delete_file", "file"]
            .into_iter()
            .map(|name| Rc::new(file_tool(name, runs.clone())) as Rc<dyn Tool>)
            .collect();
        let builder = TestAgent::builder(turns).tools(tools);
        let first = builder.clone().config(with_approvals(approvals())).build();
        World {
            pages: builder.open(&first.conversation),
            store: first.store,
            model: first.model,
            clock: first.clock,
            runs,
            conversation: first.conversation,
        }
    }

    /// A new page (a page load) under `approvals`.
    pub fn page(&self, approvals: ApprovalConfig) -> Page {
        self.page_builder(with_approvals(approvals)).build()
    }

    /// A page with `config`, not yet built: to give it another clock or more tools.
    pub fn page_builder(&self, config: AgentConfig) -> Builder {
        self.pages.clone().config(config)
    }

    /// The arguments of every run of the tool `name`, in order.
    pub fn runs_of(&self, name: &str) -> Vec<Value> {
        self.runs
            .borrow()
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, a)| a.clone())
            .collect()
    }

    /// The conversation's stored messages.
    pub fn messages(&self) -> Vec<Message> {
        block_on(self.store.messages(&self.conversation)).unwrap()
    }

    /// The stored tool results, as the model reads them.
    pub fn tool_results(&self) -> Vec<String> {
        tool_results_of(self.messages())
    }

    /// The stored history as (role, content) pairs, tool calls shown as `call:<name>`.
    pub fn history(&self) -> Vec<(Role, String)> {
        self.messages()
            .into_iter()
            .map(|m| {
                let content = match m.tool_calls.first() {
                    Some(call) => format!("call:{}", call.name),
                    None => m.content,
                };
                (m.role, content)
            })
            .collect()
    }
}
