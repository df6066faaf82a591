//! A tool step cut off by the turn's time limit. The limit drops the turn's
//! work wherever it is; if that is while a step's calls run, the step would be
//! lost with whatever its tools did. So the turn keeps the step open while its
//! calls run, noting each call as it starts and settles, and once cut off it
//! stores the step itself: settled calls with their results, calls still
//! running answered "Interrupted" (never run again), the others "Not run" —
//! like a resolve cut off by its limit.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use super::tool_step::{in_call_order, settled_of, stamp, step_messages};
use super::turn::TurnScope;
use super::{Agent, TurnState};
use crate::approval::Decision;
use crate::domain::{ReasoningBlock, ToolCall};
use crate::provider::ModelResponse;
use crate::storage::TurnWrite;
use crate::tool::ToolOutcome;

/// What the model reads for a call that was running when the turn ran out of time.
const CUT_WHILE_RUNNING: &str =
    "Interrupted: the turn ran out of time while this action ran; it may or may not have completed";

/// What the model reads for a call of that step that had not started.
const CUT_BEFORE_START: &str = "Not run: the turn ran out of time before this action started";

/// What a stored step is made of, besides its calls' outcomes.
pub(super) struct StepParts<'a> {
    /// The text the model wrote alongside its calls.
    pub text: &'a str,
    /// The model's reasoning in that response.
    pub reasoning: &'a [ReasoningBlock],
    /// Every call of the response, in order.
    pub calls: &'a [ToolCall],
}

/// A tool step whose calls are running: not stored yet.
pub(super) struct OpenStep {
    text: String,
    reasoning: Vec<ReasoningBlock>,
    calls: Vec<ToolCall>,
    started: Vec<String>,
    settled: Vec<ToolOutcome>,
    working_state: Rc<RefCell<Option<Value>>>,
}

impl OpenStep {
    /// The step of `response`, with the calls already `settled` without running.
    pub fn new(
        response: &ModelResponse,
        settled: Vec<ToolOutcome>,
        working_state: Rc<RefCell<Option<Value>>>,
    ) -> Self {
        OpenStep {
            text: response.text.clone(),
            reasoning: response.reasoning.clone(),
            calls: response.tool_calls.clone(),
            started: Vec::new(),
            settled,
            working_state,
        }
    }
}

impl TurnScope<'_> {
    /// Keeps `step` until [`TurnScope::close_step`] (or until the turn stores it, cut off).
    pub fn open_step(&self, step: OpenStep) {
        *self.open_step.borrow_mut() = Some(step);
    }

    /// Every call of the open step settled: the step goes on to be stored as usual.
    pub fn close_step(&self) {
        self.open_step.borrow_mut().take();
    }

    /// A call of the open step (if any) started.
    pub fn note_started(&self, call_id: &str) {
        if let Some(step) = self.open_step.borrow_mut().as_mut() {
            step.started.push(call_id.to_owned());
        }
    }

    /// A call of the open step (if any) settled.
    pub fn note_settled(&self, outcome: &ToolOutcome) {
        if let Some(step) = self.open_step.borrow_mut().as_mut() {
            step.settled.push(outcome.clone());
        }
    }
}

impl Agent {
    /// If the turn stopped while a step's calls ran, stores that step with the
    /// records of all its calls (added to `state`). Best effort: the turn's
    /// error is what the caller hears either way.
    pub(super) async fn store_cut_step(&self, scope: &TurnScope<'_>, state: &mut TurnState) {
        let Some(step) = scope.open_step.borrow_mut().take() else {
            return;
        };
        let parts = StepParts {
            text: &step.text,
            reasoning: &step.reasoning,
            calls: &step.calls,
        };
        let answer = |call: &ToolCall| {
            if step.started.contains(&call.id) {
                CUT_WHILE_RUNNING
            } else {
                CUT_BEFORE_START
            }
        };
        let mut write = self.cut_step_write(scope, state, parts, step.settled.clone(), answer);
        write.grants = std::mem::take(&mut state.new_grants);
        if self.store.commit(write).await.is_err() {
            return;
        }
        if let Ok(Some(conversation)) = self.store.conversation(scope.conversation_id).await {
            let _ = self.keep_working_state(conversation, &step.working_state).await;
        }
    }

    /// The write that stores a step cut off before all its calls settled:
    /// the `settled` calls keep their results, every other one is answered
    /// `answer(call)` (and never run again). Their records join `state`.
    pub(super) fn cut_step_write(
        &self,
        scope: &TurnScope<'_>,
        state: &mut TurnState,
        step: StepParts<'_>,
        mut settled: Vec<ToolOutcome>,
        answer: impl Fn(&ToolCall) -> &'static str,
    ) -> TurnWrite {
        for call in step.calls {
            if !settled.iter().any(|o| o.call.id == call.id) {
                let message = answer(call).to_owned();
                settled.push(self.not_run(scope, call, Decision::Auto, message, None));
            }
        }
        let outcomes = in_call_order(settled, step.calls);
        let records = stamp(&outcomes, &scope.turn_id, state);
        let mut messages = step_messages(
            scope.conversation_id,
            step.text,
            step.calls,
            &settled_of(&outcomes, self.config.max_tool_result_chars),
            &self.config.redact_arguments,
            self.clock.now_ms(),
        );
        messages[0].reasoning = step.reasoning.to_vec();
        TurnWrite {
            messages,
            tool_calls: records,
            ..TurnWrite::default()
        }
    }
}
