//! A tool step's calls: each one's policy (run, ask a person, deny), the
//! tool runner for those that run, and the outcome of those that do not.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{json, Value};

use super::Turn;
use crate::agent::egress::record_tool_egress;
use crate::agent::ToolCallRecord;
use crate::approval::{ApprovalPolicy, Decision, PendingCall, PolicyContext};
use crate::domain::ToolCall;
use crate::events::EventKind;
use crate::tool::{
    prepare_call, redact_arguments, run_tool_calls, ToolContext, ToolOutcome, ToolRunContext, ToolRunSettings,
};

/// What to do with one call.
enum Plan {
    /// Run it now.
    Run,
    /// Ask a person first, showing these (parsed) arguments.
    Ask(Value),
    /// Refuse it; the model reads this.
    Deny(String),
}

impl Turn<'_> {
    /// Sorts the calls by their policies: those to run, those to ask a person
    /// about, and the denied ones already settled.
    pub(super) async fn plan_calls(
        &self,
        calls: &[ToolCall],
        offered: &[String],
    ) -> (Vec<ToolCall>, Vec<PendingCall>, Vec<ToolOutcome>) {
        let (mut to_run, mut asks, mut denied) = (Vec::new(), Vec::new(), Vec::new());
        for call in calls {
            match self.plan_call(call, offered).await {
                Plan::Run => to_run.push(call.clone()),
                Plan::Ask(arguments) => asks.push(PendingCall {
                    call_id: call.id.clone(),
                    tool_name: call.name.clone(),
                    arguments,
                }),
                Plan::Deny(message) => {
                    denied.push(self.not_run(call, Decision::Denied, message, None));
                }
            }
        }
        (to_run, asks, denied)
    }

    /// The policy of one call. A call that cannot run at all (unknown tool,
    /// bad arguments) is not asked about: the runner reports why to the model.
    /// Calls that always run are not parsed here (the runner parses them).
    async fn plan_call(&self, call: &ToolCall, offered: &[String]) -> Plan {
        let (agent, state) = (self.agent, &self.state);
        let approvals = agent.approvals();
        // A tool allowed "always" in this conversation counts as auto-approved: `ask` runs, `deny` still refuses.
        let auto_approve = state.overrides.auto_approve
            || state.granted.contains(&call.name)
            || approvals.auto_approve_for(state.overrides.approvals.auto_approve);
        let read_only = agent.tools.get(&call.name).is_some_and(|tool| tool.read_only());
        if approvals.always_runs(&call.name, read_only, auto_approve) {
            return Plan::Run;
        }
        let Ok((_, arguments)) = prepare_call(call, offered, &agent.tools) else {
            return Plan::Run;
        };
        let context = PolicyContext {
            tool_name: call.name.clone(),
            conversation_id: self.scope.conversation_id.clone(),
            user_id: state.user_id.clone(),
        };
        let (policy, reason) = approvals
            .policy_for(&arguments, &context, read_only, auto_approve)
            .await;
        match policy {
            ApprovalPolicy::Auto => Plan::Run,
            ApprovalPolicy::Ask if state.overrides.refuse_asks => Plan::Deny(format!(
                "Denied: {} needs a person's approval, which a one-shot turn cannot ask for",
                call.name
            )),
            ApprovalPolicy::Ask => Plan::Ask(arguments),
            ApprovalPolicy::Deny => Plan::Deny(format!(
                "Denied: {} is not allowed to run here{}",
                call.name,
                reason.map(|r| format!(" ({r})")).unwrap_or_default()
            )),
        }
    }

    /// Runs calls through the tool runner (tool context from the turn, in the
    /// conversation's book `book_id`; a tool's new working state lands in
    /// `working_state`, the requests built-in tools sent in the egress ledger).
    pub(super) async fn run_calls(
        &mut self,
        book_id: Option<&str>,
        calls: &[ToolCall],
        offered: &[String],
        working_state: &Rc<RefCell<Option<Value>>>,
    ) -> Vec<ToolOutcome> {
        if calls.is_empty() {
            return Vec::new();
        }
        let (agent, scope) = (self.agent, &self.scope);
        let settings = ToolRunSettings {
            offered: offered.to_vec(),
            parallel: agent.config.parallel_tool_calls,
            default_timeout_ms: agent.config.limits.tool_timeout_ms,
            redact: agent.config.redact_arguments.clone(),
        };
        let emit = |kind: EventKind| {
            if let EventKind::ToolInvocation { call_id, .. } = &kind {
                scope.note_started(call_id);
            }
            scope.emit(|| kind)
        };
        let settled = |outcome: &ToolOutcome| scope.note_settled(outcome);
        let requests = Rc::new(RefCell::new(Vec::new()));
        let run = ToolRunContext {
            registry: &agent.tools,
            cache: &agent.cache,
            clock: &*agent.clock,
            tool_context: ToolContext {
                conversation_id: scope.conversation_id.clone(),
                user_id: self.state.user_id.clone(),
                book_id: book_id.map(str::to_owned),
                cancel: scope.cancel.clone(),
                max_context_tokens: self.state.overrides.max_context_tokens.map(|n| n as usize),
                working_state: working_state.clone(),
                call_id: String::new(),
                requests: requests.clone(),
            },
            emit: &emit,
            settled: &settled,
        };
        let outcomes = run_tool_calls(calls, &settings, &run).await;
        record_tool_egress(&mut self.state, requests.take());
        outcomes
    }

    /// The outcome of a call settled without running: the model reads
    /// `message` (as `{"error": ...}`, or as is for a person's rejection).
    pub fn not_run(
        &self,
        call: &ToolCall,
        decision: Decision,
        message: String,
        reason: Option<String>,
    ) -> ToolOutcome {
        let arguments = redact_arguments(&call.arguments, &self.agent.config.redact_arguments);
        let now = self.agent.clock.now_ms();
        let mut record = ToolCallRecord::not_run(call, arguments, decision, message.clone(), now);
        record.conversation_id = self.scope.conversation_id.clone();
        record.reason = reason;
        self.scope.emit(|| EventKind::ToolResult {
            tool_name: call.name.clone(),
            call_id: call.id.clone(),
            result: None,
            error: Some(message.clone()),
            duration_ms: 0.0,
            cached: false,
            details: None,
            attempts: 0,
        });
        // A person's answer reads as plain text; a refusal by the system as an error.
        let content = if matches!(decision, Decision::Rejected | Decision::MovedOn) {
            message
        } else {
            json!({ "error": message }).to_string()
        };
        ToolOutcome {
            call: call.clone(),
            content,
            record,
        }
    }
}
