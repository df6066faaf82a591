//! The turn in progress as every part of it sees it: its ids, its events
//! (emitted, and kept with `recordEvents`), its cancel token, and the tool
//! step whose calls are running (stored by `cut_step` if the turn is cut off).

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use crate::cancel::CancelToken;
use crate::domain::{ReasoningBlock, ToolCall};
use crate::events::{Event, EventKind, EventSink};
use crate::provider::ModelResponse;
use crate::tool::ToolOutcome;

/// Events recorded for one turn at most (`recordEvents`); later ones are only emitted.
pub const MAX_RECORDED_EVENTS: usize = 20_000;

/// Identifies the turn in progress, for events and tools.
pub(super) struct TurnScope<'a> {
    pub conversation_id: &'a str,
    pub turn_id: String,
    pub events: &'a EventSink,
    pub cancel: &'a CancelToken,
    pub user_id: Option<String>,
    /// When the turn started (kept in its open-turn record).
    pub started_at: f64,
    /// The tool step whose calls are running, if any (see `cut_step`).
    pub open_step: RefCell<Option<OpenStep>>,
    /// With `recordEvents`, the events emitted so far, kept for the store.
    pub recorded: Option<RefCell<Vec<Event>>>,
}

impl TurnScope<'_> {
    /// Emits an event built from `kind` — only if someone listens, or it is recorded.
    pub fn emit(&self, kind: impl FnOnce() -> EventKind) {
        let build = || Event {
            conversation_id: self.conversation_id.to_owned(),
            turn_id: self.turn_id.clone(),
            kind: kind(),
        };
        let Some(recorded) = &self.recorded else {
            return self.events.emit_with(build);
        };
        let event = build();
        if recorded.borrow().len() < MAX_RECORDED_EVENTS {
            recorded.borrow_mut().push(event.clone());
        }
        self.events.emit_with(|| event);
    }
}

/// A tool step whose calls are running: not stored yet.
pub(super) struct OpenStep {
    pub(super) text: String,
    pub(super) reasoning: Vec<ReasoningBlock>,
    pub(super) calls: Vec<ToolCall>,
    pub(super) started: Vec<String>,
    pub(super) settled: Vec<ToolOutcome>,
    pub(super) working_state: Rc<RefCell<Option<Value>>>,
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
