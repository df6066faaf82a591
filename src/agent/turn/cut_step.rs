//! A tool step cut off by the turn's time limit. The limit drops the turn's
//! work wherever it is; if that is while a step's calls run, the step would be
//! lost with whatever its tools did. So the turn keeps the step open while its
//! calls run, noting each call as it starts and settles, and once cut off it
//! stores the step itself: settled calls with their results, calls still
//! running answered "Interrupted" (never run again), the others "Not run" —
//! like a resolve cut off by its limit.

use super::Turn;
use crate::agent::step::StepParts;
use crate::approval::Decision;
use crate::domain::ToolCall;
use crate::storage::TurnWrite;
use crate::tool::ToolOutcome;

/// What the model reads for a call that was running when the turn ran out of time.
const CUT_WHILE_RUNNING: &str =
    "Interrupted: the turn ran out of time while this action ran; it may or may not have completed";

/// What the model reads for a call of that step that had not started.
const CUT_BEFORE_START: &str = "Not run: the turn ran out of time before this action started";

impl Turn<'_> {
    /// If the turn stopped while a step's calls ran, stores that step with the
    /// records of all its calls (added to the turn's state). Best effort: the
    /// turn's error is what the caller hears either way.
    pub(super) async fn store_cut_step(&mut self) {
        let Some(step) = self.scope.open_step.borrow_mut().take() else {
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
        let mut write = self.cut_step_write(parts, step.settled.clone(), answer);
        write.grants = std::mem::take(&mut self.state.new_grants);
        let store = &self.agent.store;
        if store.commit(write).await.is_err() {
            return;
        }
        if let Ok(Some(conversation)) = store.conversation(&self.scope.conversation_id).await {
            let _ = self.keep_working_state(conversation, &step.working_state).await;
        }
    }

    /// The write that stores a step cut off before all its calls settled:
    /// the `settled` calls keep their results, every other one is answered
    /// `answer(call)` (and never run again). Their records join the turn's state.
    pub fn cut_step_write(
        &mut self,
        step: StepParts<'_>,
        mut settled: Vec<ToolOutcome>,
        answer: impl Fn(&ToolCall) -> &'static str,
    ) -> TurnWrite {
        for call in step.calls {
            if !settled.iter().any(|o| o.call.id == call.id) {
                let message = answer(call).to_owned();
                settled.push(self.not_run(call, Decision::Auto, message, None));
            }
        }
        let done = self.settle(settled, step.calls);
        let redact = &self.agent.config.redact_arguments;
        let now = self.agent.clock.now_ms();
        let messages = step.messages(&self.scope.conversation_id, &done.settled, redact, now);
        TurnWrite {
            messages,
            tool_calls: done.records,
            ..TurnWrite::default()
        }
    }
}
