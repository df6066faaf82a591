//! One conversation turn as a value: the agent it runs on, its scope (ids,
//! events, cancel token, the tool step whose calls run) and its state (steps,
//! records, usage, sources…), whose methods are the loop — build the request,
//! call the model, run the tools it asks for, store every step as it happens,
//! and finish (the answer stored) or conclude (the result, or the failure with
//! what was done). `send`, `retry`, `resolveApprovals` and `resumeTurn` make a
//! turn and run it.

use crate::approval::PendingCall;
use crate::domain::{Conversation, EgressPurpose, TurnState};
use crate::error::{Error, Result};
use crate::events::{EventKind, EventSink};
use crate::runtime::cancel::CancelToken;

use super::{Agent, TurnResult, TurnStatus};
use model_call::CallContext;
use tool_step::StepEnd;

mod budget;
mod calls;
mod conclude;
mod cut_step;
mod finish;
mod model_call;
mod open_turn;
mod prepare;
mod quoted;
mod request;
mod resume;
mod scope;
mod structured;
mod summary;
mod tool_step;
mod usage;

pub(super) use scope::TurnScope;

/// A turn of an agent: what it runs on, where, and what it carried so far.
pub(super) struct Turn<'a> {
    /// The agent whose model, tools, store and configuration the turn uses.
    agent: &'a Agent,
    /// Its ids, events, cancel token and open tool step.
    scope: TurnScope,
    /// What it carried so far (kept with a paused or interrupted turn).
    state: TurnState,
}

impl<'a> Turn<'a> {
    /// The turn of `scope` on `agent`, going on from `state`.
    pub fn new(agent: &'a Agent, scope: TurnScope, state: TurnState) -> Self {
        Turn { agent, scope, state }
    }

    /// The turn heard by `events` (and recorded with `recordEvents`), cut off
    /// by `cancel`.
    pub fn heard_by(self, events: &EventSink, cancel: &CancelToken) -> Self {
        let recorded = self.agent.recorder();
        let scope = self.scope.heard_by(events, cancel, recorded);
        Turn { scope, ..self }
    }

    /// The turn's state, given back (a closed step's records added).
    pub fn into_state(self) -> TurnState {
        self.state
    }

    /// The time limit of the turn (or of a resumed turn's remaining steps).
    pub fn limit(&self) -> Option<u64> {
        self.agent.turn_limit(&self.state.overrides)
    }

    /// Model calls and tool steps until the model answers, a call needs
    /// approval, or a limit is hit.
    pub async fn run(&mut self, mut conversation: Conversation) -> Result<TurnResult> {
        let period = self.period_start().await?;
        self.warn_if_cost_unchecked();
        loop {
            self.scope.cancel.check()?;
            self.check_iterations()?;
            // Once the tool-call budget is spent, no tools are offered: the model must answer.
            let tools_left = self.state.tool_calls < self.agent.config.limits.max_tool_calls;
            let request = self
                .build_request(&conversation, tools_left, period.as_ref())
                .await?;
            let offered: Vec<String> = request.tools.iter().map(|t| t.name.clone()).collect();
            let book_id = conversation.book_id.clone();
            let call = CallContext {
                purpose: EgressPurpose::Answer,
                book_id: book_id.as_deref(),
                period: period.as_ref(),
            };
            if self.agent.config.quotes.always {
                return self.answer_with_quotes(&request, call, None).await;
            }
            let response = match self.counted_call(&request, call).await {
                Ok(response) => response,
                Err(error) if self.quotes_stand_in(&conversation, &error) => {
                    return self.answer_with_quotes(&request, call, Some(error)).await;
                }
                Err(error) => return Err(error),
            };
            if response.tool_calls.is_empty() {
                return self.finish(&request, response, call).await;
            }
            match self.run_tool_step(conversation, response, &offered).await? {
                StepEnd::Continue(next) => conversation = next,
                StepEnd::Paused(pending) => return Ok(self.paused(pending)),
            }
            self.scope.cancel.check()?;
        }
    }

    /// `MaxIterations` once the turn made as many model calls as it may.
    fn check_iterations(&self) -> Result<()> {
        let limit = self.state.overrides.max_iterations;
        let limit = limit.unwrap_or(self.agent.config.limits.max_iterations);
        if self.state.steps >= limit {
            return Err(Error::MaxIterations { limit });
        }
        Ok(())
    }

    /// The result of a turn that paused for approval.
    pub fn paused(&self, pending: Vec<PendingCall>) -> TurnResult {
        self.result(TurnStatus::AwaitingApproval, String::new(), pending)
    }

    /// The turn's outcome so far, with `status`, answer `text` and `pending` calls.
    fn result(&self, status: TurnStatus, text: String, pending: Vec<PendingCall>) -> TurnResult {
        TurnResult {
            status,
            turn_id: self.scope.turn_id.clone(),
            text,
            pending,
            tool_calls: self.state.records.clone(),
            usage: self.usage(),
            steps: self.state.steps,
            egress: self.state.egress.clone(),
            data: None,
            sources: Vec::new(),
            source_check: None,
            quoted: None,
            messages: Vec::new(),
        }
    }

    /// Emits the `warning` of a cost limit the model's missing price leaves unchecked.
    fn warn_if_cost_unchecked(&self) {
        if self.cost_unchecked() {
            self.scope.emit(|| EventKind::Warning {
                code: "budgetUnpriced".into(),
                message:
                    "a maxCostUsd budget is set but the model has no price in prices: cost is not checked"
                        .into(),
            });
        }
    }
}
