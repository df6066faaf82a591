//! One tool step of a turn: decide each call's policy, run what may run,
//! and either persist the step (the call and its results, in one write) or
//! pause the turn for approval (the paused turn, in one write).

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{json, Value};

use super::step::{settle, StepParts};
use super::turn_scope::{OpenStep, TurnScope};
use super::{Agent, ToolCallRecord, TurnState};
use crate::approval::{
    ApprovalPolicy, Decision, PausedStep, PendingCall, PendingStatus, PendingTurn, PolicyContext,
};
use crate::domain::{Conversation, Message, OpenTurnChange, ToolCall};
use crate::error::{Error, Result};
use crate::events::EventKind;
use crate::provider::ModelResponse;
use crate::storage::TurnWrite;
use crate::tool::{
    prepare_call, redact_arguments, run_tool_calls, ToolContext, ToolOutcome, ToolRunContext, ToolRunSettings,
};

/// How a tool step ended.
pub(super) enum StepEnd {
    /// Every call settled and the step is stored: call the model again.
    Continue(Conversation),
    /// These calls wait for a person; the paused turn is stored.
    Paused(Vec<PendingCall>),
}

/// What to do with one call.
enum Plan {
    Run,
    Ask(Value),
    Deny(String),
}

impl Agent {
    /// Runs the tool calls of a response as their policies say, and persists
    /// the step or the paused turn.
    pub(super) async fn run_tool_step(
        &self,
        scope: &TurnScope<'_>,
        conversation: Conversation,
        response: ModelResponse,
        offered: &[String],
        state: &mut TurnState,
    ) -> Result<StepEnd> {
        let limit = self.config.limits.max_tool_calls;
        let room = limit.saturating_sub(state.tool_calls) as usize;
        let (runnable, refused) = response.tool_calls.split_at(room.min(response.tool_calls.len()));
        state.tool_calls += response.tool_calls.len() as u32;

        let redact = &self.config.redact_arguments;
        let (to_run, asks, mut outcomes) = self.plan_calls(runnable, offered, scope, state).await;
        if !to_run.is_empty() {
            self.note_open_step(scope, state, &response, &outcomes).await?;
        }
        let working_state = Rc::new(RefCell::new(None));
        // Until every call settled, a turn cut off by its time limit stores the step itself.
        scope.open_step(OpenStep::new(&response, outcomes.clone(), working_state.clone()));
        outcomes.extend(
            self.run_calls(scope, &conversation, &to_run, offered, &working_state, state)
                .await,
        );
        scope.close_step();
        for call in refused {
            let message = format!("Not run: the limit of {limit} tool calls per turn was reached");
            outcomes.push(self.not_run(scope, call, Decision::Auto, message, None));
        }
        // Records and results follow the order of the calls in the response.
        let max_chars = self.config.max_tool_result_chars;
        let done = settle(outcomes, &response.tool_calls, &scope.turn_id, state, max_chars);
        let (records, settled) = (done.records, done.settled);

        if asks.is_empty() {
            let parts = StepParts::of(&response);
            let messages = parts.messages(scope.conversation_id, &settled, redact, self.clock.now_ms());
            let write = TurnWrite {
                messages,
                tool_calls: records,
                pending: None,
                grants: Vec::new(),
                open_turn: None,
            };
            self.commit_step(scope, state, write).await?;
            let conversation = self.keep_working_state(conversation, &working_state).await?;
            if !refused.is_empty() {
                return Err(Error::MaxToolCalls { limit });
            }
            return Ok(StepEnd::Continue(conversation));
        }

        let now = self.clock.now_ms();
        let pending = PendingTurn {
            turn_id: scope.turn_id.clone(),
            conversation_id: scope.conversation_id.to_owned(),
            calls: asks.clone(),
            created_at: now,
            expires_at: now + self.approvals().ttl_ms as f64,
            status: PendingStatus::Awaiting,
            // A turn that paused before and was resumed rewrites its own record.
            revision: state.paused_revision.map_or(0, |stored| stored + 1),
            step: PausedStep {
                text: response.text,
                reasoning: response.reasoning,
                calls: response.tool_calls.clone(),
                settled,
                running: Vec::new(),
                claim_expires_at: None,
                offered: offered.to_vec(),
                over_limit: !refused.is_empty(),
                state: state.clone(),
            },
        };
        let waiting = self
            .store_paused(scope, state, pending, records, conversation, &working_state)
            .await?;
        Ok(StepEnd::Paused(waiting))
    }

    /// Stores one step of the turn, with the grants given since the last one
    /// and (unless `write` says otherwise) the turn's open-turn record as of
    /// this step. If the write fails, the records of its calls (the last ones
    /// [`stamp`] added) leave `state` again: a step that was not stored is not
    /// reported as done; its grants wait for the next commit.
    pub(super) async fn commit_step(
        &self,
        scope: &TurnScope<'_>,
        state: &mut TurnState,
        mut write: TurnWrite,
    ) -> Result<Vec<Message>> {
        if write.open_turn.is_none() {
            let record = self.open_turn_record(scope, state, None);
            write.open_turn = Some(OpenTurnChange::Put(Box::new(record)));
        }
        let count = write.tool_calls.len();
        write.grants.append(&mut state.new_grants);
        let grants = write.grants.clone();
        let committed = self.store.commit(write).await;
        if committed.is_err() {
            state.records.truncate(state.records.len().saturating_sub(count));
            state.new_grants = grants;
        }
        committed
    }

    /// Sorts the calls by their policies: those to run, those to ask a person
    /// about, and the denied ones already settled.
    async fn plan_calls(
        &self,
        calls: &[ToolCall],
        offered: &[String],
        scope: &TurnScope<'_>,
        state: &TurnState,
    ) -> (Vec<ToolCall>, Vec<PendingCall>, Vec<ToolOutcome>) {
        let (mut to_run, mut asks, mut denied) = (Vec::new(), Vec::new(), Vec::new());
        for call in calls {
            match self.plan_call(call, offered, scope, state).await {
                Plan::Run => to_run.push(call.clone()),
                Plan::Ask(arguments) => asks.push(PendingCall {
                    call_id: call.id.clone(),
                    tool_name: call.name.clone(),
                    arguments,
                }),
                Plan::Deny(message) => {
                    denied.push(self.not_run(scope, call, Decision::Denied, message, None));
                }
            }
        }
        (to_run, asks, denied)
    }

    /// Stores a turn that waits for decisions (with the records of the calls
    /// that settled in the same write), keeps a working state a tool set, and
    /// emits `approvalRequested`. Returns the waiting calls.
    pub(super) async fn store_paused(
        &self,
        scope: &TurnScope<'_>,
        state: &mut TurnState,
        pending: PendingTurn,
        records: Vec<ToolCallRecord>,
        conversation: Conversation,
        working_state: &Rc<RefCell<Option<Value>>>,
    ) -> Result<Vec<PendingCall>> {
        let (waiting, expires_at) = (pending.calls.clone(), pending.expires_at);
        // A paused turn is its own record: the open-turn record ends here.
        let write = TurnWrite {
            messages: Vec::new(),
            tool_calls: records,
            pending: Some(pending),
            grants: Vec::new(),
            open_turn: Some(scope.end_of_turn()),
        };
        self.commit_step(scope, state, write).await?;
        self.keep_working_state(conversation, working_state).await?;
        scope.emit(|| EventKind::ApprovalRequested {
            calls: waiting.clone(),
            expires_at,
        });
        Ok(waiting)
    }

    /// The policy of one call. A call that cannot run at all (unknown tool,
    /// bad arguments) is not asked about: the runner reports why to the model.
    /// Calls that always run are not parsed here (the runner parses them).
    async fn plan_call(
        &self,
        call: &ToolCall,
        offered: &[String],
        scope: &TurnScope<'_>,
        state: &TurnState,
    ) -> Plan {
        let approvals = self.approvals();
        // A tool allowed "always" in this conversation counts as auto-approved: `ask` runs, `deny` still refuses.
        let auto_approve = state.overrides.auto_approve
            || state.granted.contains(&call.name)
            || approvals.auto_approve_for(state.overrides.approvals.auto_approve);
        let read_only = self.tools.get(&call.name).is_some_and(|tool| tool.read_only());
        if approvals.always_runs(&call.name, read_only, auto_approve) {
            return Plan::Run;
        }
        let Ok((_, arguments)) = prepare_call(call, offered, &self.tools) else {
            return Plan::Run;
        };
        let context = PolicyContext {
            tool_name: call.name.clone(),
            conversation_id: scope.conversation_id.to_owned(),
            user_id: state.user_id.clone(),
        };
        let (policy, reason) = approvals
            .policy_for(&arguments, &context, read_only, auto_approve)
            .await;
        match policy {
            ApprovalPolicy::Auto => Plan::Run,
            ApprovalPolicy::Ask => Plan::Ask(arguments),
            ApprovalPolicy::Deny => Plan::Deny(format!(
                "Denied: {} is not allowed to run here{}",
                call.name,
                reason.map(|r| format!(" ({r})")).unwrap_or_default()
            )),
        }
    }

    /// Runs calls through the tool runner (tool context from the turn; a tool's
    /// new working state lands in `working_state`, the requests built-in tools
    /// sent in the turn's egress ledger).
    pub(super) async fn run_calls(
        &self,
        scope: &TurnScope<'_>,
        conversation: &Conversation,
        calls: &[ToolCall],
        offered: &[String],
        working_state: &Rc<RefCell<Option<Value>>>,
        state: &mut TurnState,
    ) -> Vec<ToolOutcome> {
        if calls.is_empty() {
            return Vec::new();
        }
        let settings = ToolRunSettings {
            offered: offered.to_vec(),
            parallel: self.config.parallel_tool_calls,
            default_timeout_ms: self.config.limits.tool_timeout_ms,
            redact: self.config.redact_arguments.clone(),
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
            registry: &self.tools,
            cache: &self.cache,
            clock: &*self.clock,
            tool_context: ToolContext {
                conversation_id: scope.conversation_id.to_owned(),
                user_id: scope.user_id.clone(),
                book_id: conversation.book_id.clone(),
                cancel: scope.cancel.clone(),
                max_context_tokens: state.overrides.max_context_tokens.map(|n| n as usize),
                working_state: working_state.clone(),
                call_id: String::new(),
                requests: requests.clone(),
            },
            emit: &emit,
            settled: &settled,
        };
        let outcomes = run_tool_calls(calls, &settings, &run).await;
        self.record_tool_egress(state, requests.take());
        outcomes
    }

    /// The outcome of a call settled without running: the model reads
    /// `message` (as `{"error": ...}`, or as is for a person's rejection).
    pub(super) fn not_run(
        &self,
        scope: &TurnScope<'_>,
        call: &ToolCall,
        decision: Decision,
        message: String,
        reason: Option<String>,
    ) -> ToolOutcome {
        let arguments = redact_arguments(&call.arguments, &self.config.redact_arguments);
        let mut record =
            ToolCallRecord::not_run(call, arguments, decision, message.clone(), self.clock.now_ms());
        record.conversation_id = scope.conversation_id.to_owned();
        record.reason = reason;
        scope.emit(|| EventKind::ToolResult {
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

    /// Stores a working state a tool set, and returns the conversation as it now is.
    pub(super) async fn keep_working_state(
        &self,
        mut conversation: Conversation,
        working_state: &Rc<RefCell<Option<Value>>>,
    ) -> Result<Conversation> {
        let new_state = working_state.borrow_mut().take();
        if let Some(state) = new_state {
            conversation.working_state = Some(state).filter(|s| !s.is_null());
            self.store.update_conversation(&conversation).await?;
        }
        Ok(conversation)
    }
}
