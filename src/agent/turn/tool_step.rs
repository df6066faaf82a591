//! One tool step of a turn: decide each call's policy, run what may run,
//! and either persist the step (the call and its results, in one write) or
//! pause the turn for approval (the paused turn, in one write).

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use super::scope::OpenStep;
use super::Turn;
use crate::agent::step::{settle, SettledStep, StepParts};
use crate::agent::ToolCallRecord;
use crate::approval::{Decision, PausedStep, PendingCall, PendingStatus, PendingTurn};
use crate::domain::{Conversation, Message, OpenTurnChange, ToolCall};
use crate::error::{Error, Result};
use crate::events::EventKind;
use crate::provider::ModelResponse;
use crate::storage::TurnWrite;
use crate::tool::ToolOutcome;

/// How a tool step ended.
pub(super) enum StepEnd {
    /// Every call settled and the step is stored: call the model again.
    Continue(Conversation),
    /// These calls wait for a person; the paused turn is stored.
    Paused(Vec<PendingCall>),
}

/// A step's calls once their outcomes are in: the response that asked for
/// them, what was offered, and what came of them.
struct RanStep<'r> {
    /// The model's response with the calls.
    response: ModelResponse,
    /// The tools offered in the request.
    offered: &'r [String],
    /// The calls that wait for a person.
    asks: Vec<PendingCall>,
    /// Whether calls past the per-turn limit were refused.
    over_limit: bool,
    /// The settled calls' records and results, in call order.
    done: SettledStep,
    /// A working state a tool set.
    working_state: Rc<RefCell<Option<Value>>>,
}

impl Turn<'_> {
    /// Runs the tool calls of a response as their policies say, and persists
    /// the step or the paused turn.
    pub(super) async fn run_tool_step(
        &mut self,
        conversation: Conversation,
        response: ModelResponse,
        offered: &[String],
    ) -> Result<StepEnd> {
        let limit = self.agent.config.limits.max_tool_calls;
        let room = limit.saturating_sub(self.state.tool_calls) as usize;
        let (runnable, refused) = response.tool_calls.split_at(room.min(response.tool_calls.len()));
        self.state.tool_calls += response.tool_calls.len() as u32;

        let (to_run, asks, mut outcomes) = self.plan_calls(runnable, offered).await;
        if !to_run.is_empty() {
            self.note_open_step(&response, &outcomes).await?;
        }
        let working_state = Rc::new(RefCell::new(None));
        // Until every call settled, a turn cut off by its time limit stores the step itself.
        let open = OpenStep::new(&response, outcomes.clone(), working_state.clone());
        self.scope.open_step(open);
        let book_id = conversation.book_id.as_deref();
        outcomes.extend(self.run_calls(book_id, &to_run, offered, &working_state).await);
        self.scope.close_step();
        for call in refused {
            let message = format!("Not run: the limit of {limit} tool calls per turn was reached");
            outcomes.push(self.not_run(call, Decision::Auto, message, None));
        }
        // Records and results follow the order of the calls in the response.
        let done = self.settle(outcomes, &response.tool_calls);
        let over_limit = !refused.is_empty();
        let ran = RanStep {
            response,
            offered,
            asks,
            over_limit,
            done,
            working_state,
        };
        if ran.asks.is_empty() {
            self.store_step(conversation, ran).await.map(StepEnd::Continue)
        } else {
            self.pause(conversation, ran).await.map(StepEnd::Paused)
        }
    }

    /// Stores a step whose calls all settled; the conversation as it now is
    /// (`MaxToolCalls` if calls were refused past the limit).
    async fn store_step(&mut self, conversation: Conversation, ran: RanStep<'_>) -> Result<Conversation> {
        let config = &self.agent.config;
        let parts = StepParts::of(&ran.response);
        let (redact, now) = (&config.redact_arguments, self.agent.clock.now_ms());
        let messages = parts.messages(&self.scope.conversation_id, &ran.done.settled, redact, now);
        let write = TurnWrite {
            messages,
            tool_calls: ran.done.records,
            pending: None,
            grants: Vec::new(),
            open_turn: None,
        };
        self.commit_step(write).await?;
        let conversation = self.keep_working_state(conversation, &ran.working_state).await?;
        if ran.over_limit {
            return Err(Error::MaxToolCalls {
                limit: config.limits.max_tool_calls,
            });
        }
        Ok(conversation)
    }

    /// Pauses the turn for the step's waiting calls: stores it (see
    /// [`Turn::store_paused`]) and returns the waiting calls.
    async fn pause(&mut self, conversation: Conversation, ran: RanStep<'_>) -> Result<Vec<PendingCall>> {
        let now = self.agent.clock.now_ms();
        let response = ran.response;
        let pending = PendingTurn {
            turn_id: self.scope.turn_id.clone(),
            conversation_id: self.scope.conversation_id.clone(),
            calls: ran.asks,
            created_at: now,
            expires_at: now + self.agent.approvals().ttl_ms as f64,
            status: PendingStatus::Awaiting,
            // A turn that paused before and was resumed rewrites its own record.
            revision: self.state.paused_revision.map_or(0, |stored| stored + 1),
            step: PausedStep {
                text: response.text,
                reasoning: response.reasoning,
                calls: response.tool_calls,
                settled: ran.done.settled,
                running: Vec::new(),
                claim_expires_at: None,
                offered: ran.offered.to_vec(),
                over_limit: ran.over_limit,
                state: self.state.clone(),
            },
        };
        let records = ran.done.records;
        self.store_paused(pending, records, conversation, &ran.working_state)
            .await
    }

    /// Settles a step's `outcomes` (see [`settle`]): in the order of `calls`,
    /// their records stamped and added to the turn's state.
    pub fn settle(&mut self, outcomes: Vec<ToolOutcome>, calls: &[ToolCall]) -> SettledStep {
        let max_chars = self.agent.config.max_tool_result_chars;
        settle(outcomes, calls, &self.scope.turn_id, &mut self.state, max_chars)
    }

    /// Stores one step of the turn, with the grants given since the last one
    /// and (unless `write` says otherwise) the turn's open-turn record as of
    /// this step. If the write fails, the records of its calls (the last ones
    /// stamped) leave the turn's state again: a step that was not stored is not
    /// reported as done; its grants wait for the next commit.
    pub async fn commit_step(&mut self, mut write: TurnWrite) -> Result<Vec<Message>> {
        if write.open_turn.is_none() {
            let record = self.open_turn_record(None);
            write.open_turn = Some(OpenTurnChange::Put(Box::new(record)));
        }
        let count = write.tool_calls.len();
        write.grants.append(&mut self.state.new_grants);
        let grants = write.grants.clone();
        let committed = self.agent.store.commit(write).await;
        if committed.is_err() {
            let records = &mut self.state.records;
            records.truncate(records.len().saturating_sub(count));
            self.state.new_grants = grants;
        }
        committed
    }

    /// Stores a turn that waits for decisions (with the records of the calls
    /// that settled in the same write), keeps a working state a tool set, and
    /// emits `approvalRequested`. Returns the waiting calls.
    pub async fn store_paused(
        &mut self,
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
            open_turn: Some(self.scope.end_of_turn()),
        };
        self.commit_step(write).await?;
        self.keep_working_state(conversation, working_state).await?;
        self.scope.emit(|| EventKind::ApprovalRequested {
            calls: waiting.clone(),
            expires_at,
        });
        Ok(waiting)
    }
}

impl Turn<'_> {
    /// Stores a working state a tool set, tells the listeners (`workingState`),
    /// and returns the conversation as it now is.
    pub(super) async fn keep_working_state(
        &self,
        mut conversation: Conversation,
        working_state: &Rc<RefCell<Option<Value>>>,
    ) -> Result<Conversation> {
        let new_state = working_state.borrow_mut().take();
        if let Some(state) = new_state {
            conversation.working_state = Some(state).filter(|s| !s.is_null());
            self.agent.store.update_conversation(&conversation).await?;
            self.scope.emit(|| EventKind::WorkingState {
                state: conversation.working_state.clone(),
            });
        }
        Ok(conversation)
    }
}
