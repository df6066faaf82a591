//! Turns a closed page cut off: `interruptedTurns` lists them, `resumeTurn`
//! goes on from the last stored step, and a new message closes them.
//!
//! A turn's open-turn record (see `open_turn`) outlives the page that ran it.
//! While the turn runs, its conversation's lock is held (a Web Lock, shared by
//! every tab), so a record whose lock is free belongs to a turn no one runs.
//! A tool step that was running when the page closed is stored with each of
//! its unsettled calls answered "Interrupted" — never run again: whether it
//! finished is unknown, and running it twice could do twice what it does.

use super::step::StepParts;
use super::turn::{Turn, TurnScope};
use super::{Agent, SendOptions, TurnError, TurnResult};
use crate::domain::{InterruptedTurn, OpenStepRecord, OpenTurn};
use crate::error::{Error, Result};
use crate::events::EventSink;
use crate::runtime::time::within;
use crate::storage::TurnWrite;
use crate::tool::ToolOutcome;

/// What the model reads for a call that was running when the page closed.
pub const INTERRUPTED_BY_CLOSE: &str =
    "Interrupted: the page closed while this action ran; it may or may not have completed";

impl Agent {
    /// Turns a closed page (or a reload) cut off, of one conversation or of
    /// all, oldest first. A turn running now — here or in another tab on the
    /// same database — is not listed: its conversation's lock is held.
    pub async fn interrupted_turns(&self, conversation_id: Option<&str>) -> Result<Vec<InterruptedTurn>> {
        if let Some(id) = conversation_id {
            if !self.store.has_open_turns(id).await? {
                return Ok(Vec::new());
            }
        }
        let mut turns = self.archive().await?.open_turns(conversation_id).await?;
        crate::domain::sort_by(&mut turns, |a, b| {
            a.started_at
                .total_cmp(&b.started_at)
                .then_with(|| a.turn_id.cmp(&b.turn_id))
        });
        let mut interrupted = Vec::new();
        for turn in &turns {
            // Taken and let go at once: only a free lock says no one runs the turn.
            if self.locks.try_lock(&turn.conversation_id).await?.is_some() {
                interrupted.push(InterruptedTurn::from(turn));
            }
        }
        Ok(interrupted)
    }

    /// Goes on with an interrupted turn from its last stored step, under the
    /// same turn id; resolves like [`Agent::send`]. Completed tool calls are
    /// never run again; calls that were running are answered
    /// [`INTERRUPTED_BY_CLOSE`]. `NotFound` if no such turn is open (it ended,
    /// or another tab resumed it); `ConversationBusy` if a turn runs on its
    /// conversation right now.
    pub async fn resume_turn(
        &self,
        turn_id: &str,
        options: &SendOptions,
        events: &EventSink,
    ) -> Result<TurnResult, TurnError> {
        let conversation_id = self.open_turn(turn_id).await?.conversation_id;
        let guard = self
            .locks
            .try_lock(&conversation_id)
            .await?
            .ok_or_else(|| Error::ConversationBusy {
                conversation_id: conversation_id.clone(),
                waited_ms: 0,
            })?;
        let _turn = self.active.hold(&conversation_id, guard);
        // Read again under the lock: another tab may have resumed it meanwhile.
        let open = self.open_turn(turn_id).await?;
        let conversation = self.stored_conversation(&conversation_id).await?;
        let mut state = open.state.clone();
        state.granted = self.granted_tools(&conversation_id).await?;
        let scope = TurnScope::new(&conversation_id, open.turn_id.clone(), open.started_at);
        let mut turn = Turn::new(self, scope, state).heard_by(events, &options.cancel);
        let outcome = within(&*self.clock, turn.limit(), async {
            let write = interrupted_step(&mut turn, open.step.as_ref());
            turn.commit_step(write).await?;
            if !open.prepared {
                let text = self.trailing_user_text(&conversation_id).await?;
                turn.prepare(&conversation, &open.mentions, &text).await?;
            }
            turn.run(conversation).await
        })
        .await;
        turn.conclude(outcome).await
    }

    /// Closes the conversation's interrupted turns before a new message: the
    /// step that was running is stored with its calls answered "Interrupted"
    /// (so no side effect goes unrecorded), and the record is deleted.
    pub(super) async fn abandon_open_turns(&self, conversation_id: &str) -> Result<()> {
        // Most turns end in their page: their records are gone, and none is read.
        if !self.store.has_open_turns(conversation_id).await? {
            return Ok(());
        }
        for open in self.archive().await?.open_turns(Some(conversation_id)).await? {
            let scope = TurnScope::new(conversation_id, open.turn_id.clone(), open.started_at);
            let mut turn = Turn::new(self, scope, open.state.clone());
            let mut write = interrupted_step(&mut turn, open.step.as_ref());
            write.open_turn = Some(turn.end_of_turn());
            self.store.commit(write).await?;
        }
        Ok(())
    }

    /// The stored open turn `turn_id`; `NotFound` if there is none.
    async fn open_turn(&self, turn_id: &str) -> Result<OpenTurn> {
        self.archive()
            .await?
            .open_turns(None)
            .await?
            .into_iter()
            .find(|t| t.turn_id == turn_id)
            .ok_or_else(|| Error::not_found("interrupted turn", turn_id))
    }
}

/// The write that stores an interrupted tool step (nothing without one):
/// the calls settled before the others ran keep their results, the rest
/// are answered [`INTERRUPTED_BY_CLOSE`]. Their records join the turn's state.
fn interrupted_step(turn: &mut Turn<'_>, step: Option<&OpenStepRecord>) -> TurnWrite {
    let Some(step) = step else {
        return TurnWrite::default();
    };
    let settled = step
        .records
        .iter()
        .filter_map(|record| {
            let call = step.calls.iter().find(|c| c.id == record.id)?;
            let settled = step.settled.iter().find(|s| s.call_id == record.id)?;
            Some(ToolOutcome {
                call: call.clone(),
                content: settled.content.clone(),
                record: record.clone(),
            })
        })
        .collect();
    let parts = StepParts {
        text: &step.text,
        reasoning: &step.reasoning,
        calls: &step.calls,
    };
    turn.cut_step_write(parts, settled, |_| INTERRUPTED_BY_CLOSE)
}
