//! The turn in progress as every part of it sees it: its ids, its events
//! (emitted, and kept with `recordEvents`), its cancel token, and the tool
//! step whose calls are running (stored by `cut_step` if the turn is cut off).

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use crate::domain::{ReasoningBlock, ToolCall};
use crate::events::{Event, EventKind, EventSink};
use crate::provider::ModelResponse;
use crate::runtime::cancel::CancelToken;
use crate::tool::ToolOutcome;

/// Events recorded for one turn at most (`recordEvents`); later ones are only emitted.
pub const MAX_RECORDED_EVENTS: usize = 20_000;

/// Identifies the turn in progress, for events and tools.
pub(in crate::agent) struct TurnScope {
    /// The conversation the turn runs in.
    pub(super) conversation_id: String,
    /// The turn's id (a resumed turn keeps its own).
    pub(super) turn_id: String,
    /// Who hears the turn's events.
    pub(super) events: EventSink,
    /// Tripping it aborts the model call and running tools.
    pub(super) cancel: CancelToken,
    /// When the turn started (kept in its open-turn record).
    pub(super) started_at: f64,
    /// The tool step whose calls are running, if any (see `cut_step`).
    pub(super) open_step: RefCell<Option<OpenStep>>,
    /// With `recordEvents`, the events emitted so far, kept for the store.
    pub(super) recorded: Option<RefCell<Vec<Event>>>,
}

impl TurnScope {
    /// The scope of turn `turn_id` on `conversation_id`, started at
    /// `started_at`, heard by no one (see [`TurnScope::heard_by`]).
    pub fn new(conversation_id: &str, turn_id: String, started_at: f64) -> Self {
        TurnScope {
            conversation_id: conversation_id.to_owned(),
            turn_id,
            events: EventSink::none(),
            cancel: CancelToken::default(),
            started_at,
            open_step: RefCell::new(None),
            recorded: None,
        }
    }

    /// The scope heard by `events`, its events kept in `recorded` (with
    /// `recordEvents`), cut off by `cancel`.
    pub(super) fn heard_by(
        self,
        events: &EventSink,
        cancel: &CancelToken,
        recorded: Option<RefCell<Vec<Event>>>,
    ) -> Self {
        TurnScope {
            events: events.clone(),
            cancel: cancel.clone(),
            recorded,
            ..self
        }
    }

    /// Emits an event built from `kind` — only if someone listens, or it is recorded.
    pub(super) fn emit(&self, kind: impl FnOnce() -> EventKind) {
        let build = || Event {
            conversation_id: self.conversation_id.clone(),
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
    /// The text the model wrote alongside its calls.
    pub(super) text: String,
    /// The model's reasoning in that response.
    pub(super) reasoning: Vec<ReasoningBlock>,
    /// Every call of the response, in order.
    pub(super) calls: Vec<ToolCall>,
    /// The ids of the calls that started running.
    pub(super) started: Vec<String>,
    /// The calls that settled (without running, or done).
    pub(super) settled: Vec<ToolOutcome>,
    /// Where a tool's new working state lands.
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

impl TurnScope {
    /// Keeps `step` until [`TurnScope::close_step`] (or until the turn stores it, cut off).
    pub(super) fn open_step(&self, step: OpenStep) {
        *self.open_step.borrow_mut() = Some(step);
    }

    /// Every call of the open step settled: the step goes on to be stored as usual.
    pub(super) fn close_step(&self) {
        self.open_step.borrow_mut().take();
    }

    /// A call of the open step (if any) started.
    pub(super) fn note_started(&self, call_id: &str) {
        if let Some(step) = self.open_step.borrow_mut().as_mut() {
            step.started.push(call_id.to_owned());
        }
    }

    /// A call of the open step (if any) settled.
    pub(super) fn note_settled(&self, outcome: &ToolOutcome) {
        if let Some(step) = self.open_step.borrow_mut().as_mut() {
            step.settled.push(outcome.clone());
        }
    }
}
