//! Paused turns: listing them, resolving them call by call, cancelling them,
//! and closing the ones whose approval expired.

use serde_json::Value;

use super::decided::Decided;
use super::grants::{approve_same_tool, note_grants};
use super::step::StepParts;
use super::turn::{Turn, TurnScope};
use super::{Agent, SendOptions, ToolCallRecord, TurnError, TurnResult};
use crate::approval::{
    ApprovalDecision, ClaimedCall, Decision, DecisionKind, OnNewMessage, PendingApproval, PendingStatus,
    PendingTurn,
};
use crate::domain::{Message, ToolCall};
use crate::error::{Error, Result};
use crate::events::EventSink;
use crate::runtime::time::within;
use crate::storage::TurnWrite;
use crate::tool::prepare_call;

/// What the model reads for a call left undecided when the user sent a new message (`onNewMessage: 'reject'`).
pub const MOVED_ON: &str = "The user moved on without approving";

/// What the model reads for a call whose resolve was abandoned while it ran.
const INTERRUPTED: &str =
    "Interrupted: this action was being run when the page closed; it may or may not have completed";

/// How long past its turn time limit a claim is kept before others may close it.
const CLAIM_GRACE_MS: u64 = 2_000;

impl Agent {
    /// Turns waiting for approval — of one conversation, or of all — oldest
    /// first. Expired ones are left out (they are closed on the next `send`).
    pub async fn pending_approvals(&self, conversation_id: Option<&str>) -> Result<Vec<PendingApproval>> {
        if let Some(id) = conversation_id {
            if !self.store.has_pending_turns(id).await? {
                return Ok(Vec::new());
            }
        }
        let now = self.clock.now_ms();
        Ok(self
            .archive()
            .await?
            .pending_turns(conversation_id)
            .await?
            .iter()
            .filter(|turn| turn.status == PendingStatus::Awaiting && turn.expires_at > now)
            .map(PendingApproval::from)
            .collect())
    }

    /// Every tool call of a conversation and what came of it, by turn and position.
    pub async fn tool_calls(&self, conversation_id: &str) -> Result<Vec<ToolCallRecord>> {
        self.store.tool_calls(conversation_id).await
    }

    /// Decides calls of a paused turn and goes on with it: approved and edited
    /// calls run (edits validated against the tool's schema first), rejected
    /// ones are answered `User rejected this action`. While calls remain
    /// undecided the turn stays paused; once none do, it continues exactly like
    /// `send` (and may pause again). Nothing runs twice: the turn is claimed in
    /// the store before any tool runs.
    pub async fn resolve_approvals(
        &self,
        turn_id: &str,
        decisions: &[ApprovalDecision],
        options: &SendOptions,
        events: &EventSink,
    ) -> Result<TurnResult, TurnError> {
        let conversation_id = self.stored_pending(turn_id).await?.conversation_id;
        let _turn = self.acquire(&conversation_id).await?;
        let mut pending = self.open_pending(turn_id).await?;
        let decided = self.check_decisions(&pending, decisions)?;
        // Read again (before the claim): a `resetApprovals` while the turn waited applies to the rest of it.
        let granted = self.granted_tools(&conversation_id).await?;
        let conversation = self.stored_conversation(&conversation_id).await?;

        pending.step.running = decided
            .iter()
            .filter(|d| d.kind != DecisionKind::Reject)
            .map(|d| ClaimedCall {
                call_id: d.call.id.clone(),
                decision: d.record_decision(),
            })
            .collect();
        let limit = self.turn_limit(&pending.step.state.overrides).unwrap_or_default();
        pending.step.claim_expires_at = Some(self.clock.now_ms() + (limit + CLAIM_GRACE_MS) as f64);
        self.write_revision(&mut pending, PendingStatus::Resolving, Vec::new(), Vec::new())
            .await?;

        let mut state = std::mem::take(&mut pending.step.state);
        state.granted = granted;
        let always = decided.iter().filter(|d| d.kind == DecisionKind::ApproveAlways);
        note_grants(&mut state, &pending, always.map(|d| &d.call), self.clock.now_ms());
        let scope = TurnScope::new(&conversation_id, turn_id.to_owned(), self.clock.now_ms());
        let mut turn = Turn::new(self, scope, state).heard_by(events, &options.cancel);
        let claimed_revision = pending.revision;
        let outcome = within(
            &*self.clock,
            turn.limit(),
            turn.resume(conversation, pending, decided),
        )
        .await;
        if outcome.is_err() {
            // Cut off before the decided calls were stored (a timeout): release the claim now
            // rather than when it lapses. Best effort: the turn's error is what the caller hears.
            self.release_stale_claim(turn_id, claimed_revision).await;
        }
        turn.conclude(outcome).await
    }

    /// Releases the claim of `turn_id` if it is still the one taken at
    /// `claimed_revision` (best effort).
    async fn release_stale_claim(&self, turn_id: &str, claimed_revision: u32) {
        let stored = match self.archive().await {
            Ok(archive) => archive.pending_turn(turn_id).await,
            Err(e) => Err(e),
        };
        if let Ok(Some(stored)) = stored {
            if stored.status == PendingStatus::Resolving && stored.revision == claimed_revision {
                let _ = self.release_claim(stored).await;
            }
        }
    }

    /// Cancels a paused turn: its undecided calls are answered "Not run" and
    /// the step is stored, so the conversation can take a new message. A turn
    /// whose resolve was abandoned (the page closed while its calls ran) can be
    /// cancelled too; those calls are answered "Interrupted".
    pub async fn cancel_pending(&self, turn_id: &str) -> Result<()> {
        let conversation_id = self.stored_pending(turn_id).await?.conversation_id;
        let _turn = self.acquire(&conversation_id).await?;
        let pending = self.stored_pending(turn_id).await?;
        let abandoned = pending.is_abandoned(self.clock.now_ms());
        if pending.status != PendingStatus::Awaiting && !abandoned {
            return Err(Error::AlreadyResolved {
                turn_id: turn_id.to_owned(),
                state: pending.status.as_str().to_owned(),
            });
        }
        self.close_pending(pending, PendingStatus::Cancelled).await
    }

    /// Refuses a new message while the conversation has an open paused turn —
    /// or, with `OnNewMessage::Reject`, closes a waiting (not claimed) one, its
    /// calls answered [`MOVED_ON`]; closes open turns whose approval expired or
    /// whose resolve was abandoned.
    pub(super) async fn refuse_if_paused(&self, conversation_id: &str, on_new: OnNewMessage) -> Result<()> {
        // Most conversations never paused: their turns read no paused-turn record.
        if !self.store.has_pending_turns(conversation_id).await? {
            return Ok(());
        }
        let now = self.clock.now_ms();
        for turn in self.archive().await?.pending_turns(Some(conversation_id)).await? {
            if !turn.status.is_open() {
                continue;
            }
            let turn_id = turn.turn_id.clone();
            let closed = if turn.expires_at <= now {
                self.close_pending(turn, PendingStatus::Expired).await?;
                true
            } else if turn.is_abandoned(now) {
                // Released, it either closes (nothing left to decide) or waits again.
                self.release_claim(turn).await? == PendingStatus::Cancelled
            } else if on_new == OnNewMessage::Reject && turn.status == PendingStatus::Awaiting {
                self.close_pending(turn, PendingStatus::MovedOn).await?;
                true
            } else {
                false
            };
            if !closed {
                return Err(Error::ApprovalPending {
                    conversation_id: conversation_id.to_owned(),
                    turn_id,
                });
            }
        }
        Ok(())
    }

    /// The stored paused turn `turn_id`, whatever its status; `NotFound` if there is none.
    async fn stored_pending(&self, turn_id: &str) -> Result<PendingTurn> {
        self.archive()
            .await?
            .pending_turn(turn_id)
            .await?
            .ok_or_else(|| Error::not_found("pending turn", turn_id))
    }

    /// The paused turn, if it still waits for decisions; an expired one is closed.
    async fn open_pending(&self, turn_id: &str) -> Result<PendingTurn> {
        let pending = self.stored_pending(turn_id).await?;
        if pending.status.is_open() && pending.expires_at <= self.clock.now_ms() {
            let expired_at = pending.expires_at;
            self.close_pending(pending, PendingStatus::Expired).await?;
            return Err(Error::ApprovalExpired {
                turn_id: turn_id.to_owned(),
                expired_at,
            });
        }
        if pending.status != PendingStatus::Awaiting {
            return Err(Error::AlreadyResolved {
                turn_id: turn_id.to_owned(),
                state: pending.status.as_str().to_owned(),
            });
        }
        Ok(pending)
    }

    /// Checks every decision before anything runs or is written.
    fn check_decisions(&self, pending: &PendingTurn, decisions: &[ApprovalDecision]) -> Result<Vec<Decided>> {
        if decisions.is_empty() {
            return Err(Error::config("resolveApprovals needs at least one decision"));
        }
        let mut decided: Vec<Decided> = Vec::with_capacity(decisions.len());
        for decision in decisions {
            let not_pending = || Error::CallNotPending {
                turn_id: pending.turn_id.clone(),
                call_id: decision.call_id.clone(),
            };
            if !pending.calls.iter().any(|c| c.call_id == decision.call_id) {
                return Err(not_pending());
            }
            if decided.iter().any(|d| d.call.id == decision.call_id) {
                return Err(Error::config(format!(
                    "call {} is decided twice in one resolveApprovals",
                    decision.call_id
                )));
            }
            let original = pending
                .step
                .calls
                .iter()
                .find(|c| c.id == decision.call_id)
                .ok_or_else(not_pending)?;
            let call = match (decision.decision, &decision.arguments) {
                (DecisionKind::Edit, None) => {
                    return Err(Error::config(format!(
                        "the edit of call {} needs arguments",
                        decision.call_id
                    )))
                }
                (DecisionKind::Edit, Some(arguments)) => {
                    self.edited_call(original, arguments, &pending.step.offered)?
                }
                (_, Some(_)) => {
                    return Err(Error::config(format!(
                        "call {}: arguments are only for decision 'edit'",
                        decision.call_id
                    )))
                }
                (_, None) => original.clone(),
            };
            decided.push(Decided {
                call,
                original_arguments: original.arguments.clone(),
                kind: decision.decision,
                reason: decision.reason.clone(),
            });
        }
        approve_same_tool(pending, &mut decided);
        Ok(decided)
    }

    /// `original` with the edited arguments, if they are a JSON object valid
    /// against the tool's schema; `InvalidArguments` naming the field if not.
    fn edited_call(&self, original: &ToolCall, arguments: &Value, offered: &[String]) -> Result<ToolCall> {
        let invalid = |message: String| Error::InvalidArguments {
            tool: original.name.clone(),
            message,
        };
        let text = match arguments {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let parsed: Value =
            serde_json::from_str(&text).map_err(|e| invalid(format!("not valid JSON ({e})")))?;
        if !parsed.is_object() {
            return Err(invalid("the arguments must be a JSON object".into()));
        }
        let edited = ToolCall {
            arguments: parsed.to_string(),
            ..original.clone()
        };
        prepare_call(&edited, offered, &self.tools)
            .map_err(|message| invalid(message.trim_start_matches("Invalid arguments: ").to_owned()))?;
        Ok(edited)
    }

    /// Releases a claim whose resolve stopped before storing its calls: the
    /// claimed calls are answered "Interrupted" (never run again). If calls
    /// remain undecided the turn waits for them again (`Awaiting`); if not, it
    /// is closed (`Cancelled`). Returns the status it is left in.
    async fn release_claim(&self, mut pending: PendingTurn) -> Result<PendingStatus> {
        let undecided = pending
            .calls
            .iter()
            .any(|c| !pending.step.running.iter().any(|r| r.call_id == c.call_id));
        if !undecided {
            self.close_pending(pending, PendingStatus::Cancelled).await?;
            return Ok(PendingStatus::Cancelled);
        }
        let running = std::mem::take(&mut pending.step.running);
        let records = self.settle_unrun(&mut pending, |call| {
            let claimed = running.iter().find(|c| c.call_id == call.id)?;
            Some((claimed.decision, INTERRUPTED.to_owned()))
        });
        pending
            .calls
            .retain(|c| !running.iter().any(|r| r.call_id == c.call_id));
        pending.step.claim_expires_at = None;
        self.write_revision(&mut pending, PendingStatus::Awaiting, Vec::new(), records)
            .await?;
        Ok(PendingStatus::Awaiting)
    }

    /// Ends a paused turn without a decision for its waiting calls: they are
    /// answered "Not run" (or "Interrupted", for calls a resolve had claimed
    /// when it stopped), and the step is stored.
    async fn close_pending(&self, mut pending: PendingTurn, status: PendingStatus) -> Result<()> {
        let (decision, message) = match status {
            PendingStatus::Expired => (Decision::Expired, "Not run: nobody approved this action in time"),
            PendingStatus::MovedOn => (Decision::MovedOn, MOVED_ON),
            _ => (Decision::Cancelled, "Not run: the user cancelled this action"),
        };
        let running = pending.step.running.clone();
        let records = self.settle_unrun(&mut pending, |call| {
            Some(match running.iter().find(|c| c.call_id == call.id) {
                Some(claimed) => (claimed.decision, INTERRUPTED.to_owned()),
                None => (decision, message.to_owned()),
            })
        });
        let messages = self.settled_step(&pending);
        pending.calls.clear();
        pending.step.running.clear();
        pending.step.claim_expires_at = None;
        self.write_revision(&mut pending, status, messages, records).await
    }

    /// Writes the paused turn's next revision, in `status`, with the step's
    /// messages and records, in one write — refused (`AlreadyResolved`) if
    /// another writer got there first.
    async fn write_revision(
        &self,
        pending: &mut PendingTurn,
        status: PendingStatus,
        messages: Vec<Message>,
        tool_calls: Vec<ToolCallRecord>,
    ) -> Result<()> {
        pending.status = status;
        pending.revision += 1;
        let write = TurnWrite {
            messages,
            tool_calls,
            pending: Some(pending.clone()),
            grants: Vec::new(),
            open_turn: None,
        };
        self.store.commit(write).await.map(|_| ())
    }

    /// Settles, without running them, the calls of a paused step that `answer`
    /// picks (among those not settled yet), with the decision and text it gives;
    /// returns their records, added to the paused turn's state. No events: nobody
    /// is watching a turn that is being closed or released.
    fn settle_unrun(
        &self,
        pending: &mut PendingTurn,
        answer: impl Fn(&ToolCall) -> Option<(Decision, String)>,
    ) -> Vec<ToolCallRecord> {
        let state = std::mem::take(&mut pending.step.state);
        let scope = TurnScope::new(
            &pending.conversation_id,
            pending.turn_id.clone(),
            pending.created_at,
        );
        let mut turn = Turn::new(self, scope, state);
        let step = &pending.step;
        let outcomes: Vec<_> = step
            .calls
            .iter()
            .filter(|c| !step.settled.iter().any(|s| s.call_id == c.id))
            .filter_map(|call| {
                let (decision, text) = answer(call)?;
                Some(turn.not_run(call, decision, text, None))
            })
            .collect();
        let done = turn.settle(outcomes, &pending.step.calls);
        pending.step.state = turn.into_state();
        pending.step.settled.extend(done.settled);
        done.records
    }

    /// The stored form of a paused step once every call is settled.
    pub(super) fn settled_step(&self, pending: &PendingTurn) -> Vec<Message> {
        let step = &pending.step;
        let parts = StepParts {
            text: &step.text,
            reasoning: &step.reasoning,
            calls: &step.calls,
        };
        parts.messages(
            &pending.conversation_id,
            &step.settled,
            &self.config.redact_arguments,
            self.clock.now_ms(),
        )
    }
}
