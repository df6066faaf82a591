//! A paused turn going on after `resolveApprovals`: the decided calls run (or
//! are answered rejected), what came of them is stored, and once no call
//! waits the turn's loop goes on.

use std::cell::RefCell;
use std::rc::Rc;

use super::Turn;
use crate::agent::decided::{Decided, REJECTED};
use crate::agent::TurnResult;
use crate::approval::{Decision, DecisionKind, PendingStatus, PendingTurn, SettledCall};
use crate::domain::{Conversation, ToolCall};
use crate::error::{Error, Result};
use crate::storage::TurnWrite;
use crate::tool::{redact_arguments, ToolOutcome};

impl Turn<'_> {
    /// Runs the `decided` calls of the claimed turn `pending`, stores what
    /// came of them, and goes on with the turn once no call waits.
    pub async fn resume(
        &mut self,
        conversation: Conversation,
        mut pending: PendingTurn,
        decided: Vec<Decided>,
    ) -> Result<TurnResult> {
        let working_state = Rc::new(RefCell::new(None));
        let outcomes = self
            .run_decided(&conversation, &pending, &decided, &working_state)
            .await;
        let done = self.settle(outcomes, &pending.step.calls);
        let records = done.records;
        self.note_decided(&mut pending, &decided, done.settled);
        if !pending.calls.is_empty() {
            pending.status = PendingStatus::Awaiting;
            let waiting = self
                .store_paused(pending, records, conversation, &working_state)
                .await?;
            return Ok(self.paused(waiting));
        }

        pending.status = PendingStatus::Resolved;
        let messages = self.agent.settled_step(&pending);
        let over_limit = pending.step.over_limit;
        // The turn may pause again: its next paused record must follow this one.
        self.state.paused_revision = Some(pending.revision);
        let write = TurnWrite {
            messages,
            tool_calls: records,
            pending: Some(pending),
            grants: Vec::new(),
            open_turn: None,
        };
        // The turn goes on: the commit writes its open-turn record.
        self.commit_step(write).await?;
        let conversation = self.keep_working_state(conversation, &working_state).await?;
        if over_limit {
            return Err(Error::MaxToolCalls {
                limit: self.agent.config.limits.max_tool_calls,
            });
        }
        self.scope.cancel.check()?;
        self.run(conversation).await
    }

    /// Writes into the claimed turn `pending` what came of its `decided` calls:
    /// their `settled` results, their edited arguments, no call running, and
    /// the turn's state as it now is, as its next revision.
    fn note_decided(&self, pending: &mut PendingTurn, decided: &[Decided], settled: Vec<SettledCall>) {
        for d in decided {
            if let Some(call) = pending.step.calls.iter_mut().find(|c| c.id == d.call.id) {
                call.arguments = d.call.arguments.clone();
            }
        }
        pending.step.settled.extend(settled);
        pending
            .calls
            .retain(|c| !decided.iter().any(|d| d.call.id == c.call_id));
        pending.step.running.clear();
        pending.step.claim_expires_at = None;
        pending.step.state = self.state.clone();
        pending.revision += 1;
    }

    /// Runs the approved and edited calls of `decided` (their records naming
    /// the decision and the arguments the model wrote) and answers the
    /// rejected ones.
    async fn run_decided(
        &mut self,
        conversation: &Conversation,
        pending: &PendingTurn,
        decided: &[Decided],
        working_state: &Rc<RefCell<Option<serde_json::Value>>>,
    ) -> Vec<ToolOutcome> {
        let redact = &self.agent.config.redact_arguments;
        let to_run: Vec<ToolCall> = decided
            .iter()
            .filter(|d| d.kind != DecisionKind::Reject)
            .map(|d| d.call.clone())
            .collect();
        let book_id = conversation.book_id.as_deref();
        let offered = &pending.step.offered;
        let mut outcomes = self.run_calls(book_id, &to_run, offered, working_state).await;
        for outcome in &mut outcomes {
            if let Some(d) = decided.iter().find(|d| d.call.id == outcome.call.id) {
                outcome.record.decision = d.record_decision();
                outcome.record.original_arguments = redact_arguments(&d.original_arguments, redact);
            }
        }
        for d in decided.iter().filter(|d| d.kind == DecisionKind::Reject) {
            let message = match &d.reason {
                Some(reason) if !reason.trim().is_empty() => format!("{REJECTED}: {reason}"),
                _ => REJECTED.to_owned(),
            };
            outcomes.push(self.not_run(&d.call, Decision::Rejected, message, d.reason.clone()));
        }
        outcomes
    }
}
