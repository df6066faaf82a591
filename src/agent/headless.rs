//! Headless runs: one turn with every allowed tool auto-approved and no
//! person in the loop, kept as a run record for later review.

use super::{Agent, SendOptions, TurnError, TurnOverrides, TurnResult, TurnStatus};
use crate::domain::{NewConversation, RunError, RunRecord, RunStatus};
use crate::error::{Error, Result};
use crate::events::{Event, EventKind, EventSink};
use crate::json::from_json::FromJson;
use crate::runtime::cancel::CancelToken;
use crate::runtime::ids::new_id;

/// The default time a headless run may take: two minutes.
pub const DEFAULT_RUN_TIMEOUT_MS: u64 = 120_000;

fn default_run_timeout() -> u64 {
    DEFAULT_RUN_TIMEOUT_MS
}

/// What to run (`runHeadless`' input).
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HeadlessRequest {
    /// The conversation to run in; a new one is created without it.
    #[serde(default)]
    pub conversation_id: Option<String>,
    /// The user message that starts the run.
    pub instruction: String,
    /// Offer only these tools (default: every allowed tool).
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    /// Model calls allowed (default: the configured limit).
    #[serde(default)]
    pub max_iterations: Option<u32>,
    /// Time the whole run may take (default 120 000 ms).
    #[serde(default = "default_run_timeout")]
    pub timeout_ms: u64,
}

impl Agent {
    /// Runs `request` as one turn with every `ask` auto-approved (`deny` still
    /// refuses) and stores the run. A failure or timeout resolves a `Failed`
    /// run with its reason (what the tools did stays stored); only bad input
    /// (empty instruction, unknown conversation or tool) is an error.
    pub async fn run_headless(
        &self,
        request: HeadlessRequest,
        cancel: CancelToken,
        events: &EventSink,
    ) -> Result<RunRecord> {
        self.check_headless(&request)?;
        let conversation_id = self.run_conversation(&request).await?;
        let started_at = self.clock.now_ms();
        let mut run = RunRecord::started(
            new_id(started_at),
            &conversation_id,
            &request.instruction,
            started_at,
        );
        self.archive().await?.put_run(&run).await?;
        let first_seq = self.next_seq(&conversation_id).await?;

        let options = SendOptions {
            cancel,
            overrides: TurnOverrides {
                auto_approve: true,
                tools: request.tools.clone(),
                max_iterations: request.max_iterations,
                turn_timeout_ms: Some(request.timeout_ms),
                ..TurnOverrides::default()
            },
            ..SendOptions::default()
        };
        let outcome = self
            .send(&conversation_id, &request.instruction, &options, events)
            .await;
        settle_run(&mut run, outcome);
        if run.status == RunStatus::Completed && self.changed_anything(&run.tool_calls) {
            run.status = RunStatus::Proposed;
        }
        // The run's messages, read by seq range rather than the whole conversation.
        let end = self.next_seq(&conversation_id).await?;
        let count = end.saturating_sub(first_seq) as usize;
        run.log = self
            .store
            .recent_messages(&conversation_id, Some(end), count)
            .await?;
        run.finished_at = Some(self.clock.now_ms());
        self.archive().await?.put_run(&run).await?;
        events.emit_with(|| Event {
            conversation_id: conversation_id.clone(),
            turn_id: String::new(),
            kind: EventKind::RunFinished {
                run_id: run.run_id.clone(),
                status: run.status,
            },
        });
        Ok(run)
    }

    /// Refuses bad input before anything is written.
    fn check_headless(&self, request: &HeadlessRequest) -> Result<()> {
        if request.instruction.trim().is_empty() {
            return Err(Error::config("runHeadless needs a non-empty instruction"));
        }
        if request.timeout_ms == 0 || request.max_iterations == Some(0) {
            return Err(Error::config(
                "runHeadless timeoutMs and maxIterations must be at least 1",
            ));
        }
        for name in request.tools.iter().flatten() {
            if !self.tools.contains(name) {
                return Err(Error::config(format!(
                    "runHeadless tools names {name:?}, which is not a registered tool"
                )));
            }
        }
        Ok(())
    }

    /// The run's conversation: the one named (it must exist), or a new one titled after the instruction.
    async fn run_conversation(&self, request: &HeadlessRequest) -> Result<String> {
        if let Some(id) = &request.conversation_id {
            let found = self.store.conversation(id).await?;
            return Ok(found.ok_or_else(|| Error::not_found("conversation", id))?.id);
        }
        let title: String = request.instruction.chars().take(60).collect();
        let created = self
            .create_conversation(NewConversation {
                title: Some(format!("Run: {title}")),
                book_id: None,
            })
            .await?;
        Ok(created.id)
    }

    /// The `seq` the conversation's next message will get.
    async fn next_seq(&self, conversation_id: &str) -> Result<u32> {
        let newest = self.store.recent_messages(conversation_id, None, 1).await?;
        Ok(newest.last().map_or(0, |m| m.seq + 1))
    }

    /// Every headless run, oldest first.
    pub async fn runs(&self) -> Result<Vec<RunRecord>> {
        if !self.store.has_runs().await? {
            return Ok(Vec::new());
        }
        self.archive().await?.runs().await
    }

    /// One headless run; `NotFound` if there is none with this id.
    pub async fn run(&self, run_id: &str) -> Result<RunRecord> {
        self.archive()
            .await?
            .run(run_id)
            .await?
            .ok_or_else(|| Error::not_found("run", run_id))
    }
}

/// What the run's turn came to: its answer, or why it failed (with what it did).
fn settle_run(run: &mut RunRecord, outcome: std::result::Result<TurnResult, TurnError>) {
    match outcome {
        Ok(result) if result.status == TurnStatus::Completed => {
            run.status = RunStatus::Completed;
            run.text = result.text;
            run.tool_calls = result.tool_calls;
            run.usage = result.usage;
            run.steps = result.steps;
            run.egress = result.egress;
        }
        Ok(result) => {
            // Auto-approval turns every `ask` into `auto`; this only happens if that changes.
            run.status = RunStatus::Failed;
            run.error = Some(RunError {
                name: "ApprovalPendingError".into(),
                message: "the run paused for approval".into(),
            });
            run.tool_calls = result.tool_calls;
            run.usage = result.usage;
            run.steps = result.steps;
            run.egress = result.egress;
        }
        Err(failure) => {
            run.status = RunStatus::Failed;
            run.error = Some(RunError {
                name: failure.error.name().to_owned(),
                message: failure.error.to_string(),
            });
            run.text = failure.partial_text.unwrap_or_default();
            run.tool_calls = failure.tool_calls;
            run.usage = failure.usage;
            run.steps = failure.steps;
            run.egress = failure.egress;
        }
    }
}
