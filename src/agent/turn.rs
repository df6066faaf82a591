//! One conversation turn: persist the user message, call the model until it
//! answers, persist every step.

use futures::StreamExt;

use super::{history_window, Agent, ToolCallRecord, TurnError, TurnResult, TurnUsage};
use crate::cancel::CancelToken;
use crate::domain::{Message, Role, ToolCall, Usage};
use crate::error::{Error, Result};
use crate::events::{Event, EventKind, EventSink};
use crate::ids::new_id;
use crate::provider::{Accumulator, ModelRequest, ModelResponse, StreamPart};

/// The longest user message accepted, in characters.
pub const MAX_USER_MESSAGE_CHARS: usize = 200_000;

/// Per-call options of [`Agent::send`].
#[derive(Debug, Clone, Default)]
pub struct SendOptions {
    /// Tripping it aborts the model call (`Aborted`).
    pub cancel: CancelToken,
}

/// Identifies the turn in progress, for events.
struct TurnScope<'a> {
    conversation_id: &'a str,
    turn_id: String,
    events: &'a EventSink,
    cancel: &'a CancelToken,
}

impl TurnScope<'_> {
    fn emit(&self, kind: impl FnOnce() -> EventKind) {
        self.events.emit_with(|| Event {
            conversation_id: self.conversation_id.to_owned(),
            turn_id: self.turn_id.clone(),
            kind: kind(),
        });
    }
}

/// What the turn has done so far, kept for the error if it fails.
#[derive(Default)]
struct Progress {
    usage: Usage,
    records: Vec<ToolCallRecord>,
    steps: u32,
    partial_text: Option<String>,
}

impl Agent {
    /// Runs one turn: the user says `text`, the model answers (calling tools as needed).
    ///
    /// The user message is persisted before the model is called and the answer
    /// after it arrives; if the model fails, what was persisted stays and the
    /// error is returned (and reported as an `error` event).
    pub async fn send(
        &self,
        conversation_id: &str,
        text: &str,
        options: &SendOptions,
        events: &EventSink,
    ) -> Result<TurnResult, TurnError> {
        if text.trim().is_empty() {
            return Err(Error::config("message text must not be empty").into());
        }
        if text.chars().count() > MAX_USER_MESSAGE_CHARS {
            return Err(Error::config(format!(
                "message text must be at most {MAX_USER_MESSAGE_CHARS} characters"
            ))
            .into());
        }
        if self.store.conversation(conversation_id).await?.is_none() {
            return Err(Error::not_found("conversation", conversation_id).into());
        }
        let scope = TurnScope {
            conversation_id,
            turn_id: new_id(self.clock.now_ms()),
            events,
            cancel: &options.cancel,
        };
        let mut progress = Progress::default();
        match self.run_turn(&scope, text, &mut progress).await {
            Ok(result) => Ok(result),
            Err(error) => {
                scope.emit(|| EventKind::Error {
                    name: error.name().to_owned(),
                    message: error.to_string(),
                });
                Err(TurnError {
                    error,
                    partial_text: progress.partial_text,
                    steps: progress.steps,
                })
            }
        }
    }

    async fn run_turn(
        &self,
        scope: &TurnScope<'_>,
        text: &str,
        progress: &mut Progress,
    ) -> Result<TurnResult> {
        let now = self.clock.now_ms();
        let user = Message::new(new_id(now), scope.conversation_id, Role::User, text, now);
        self.store.append_messages(vec![user]).await?;

        loop {
            if progress.steps >= self.config.max_iterations {
                return Err(Error::MaxIterations {
                    limit: self.config.max_iterations,
                });
            }
            progress.steps += 1;
            let history = self.store.messages(scope.conversation_id).await?;
            let request = ModelRequest {
                system: Some(self.config.system_prompt.clone()),
                messages: history_window(&history, self.config.max_history_messages).to_vec(),
                ..Default::default()
            };
            let response = self.call_model(scope, &request, progress).await?;
            if let Some(step_usage) = response.usage {
                progress.usage.add(&step_usage);
                let cost_usd = self.config.prices.cost_usd(self.model.model_name(), &step_usage);
                scope.emit(|| EventKind::TokenUsage {
                    input_tokens: step_usage.input_tokens,
                    output_tokens: step_usage.output_tokens,
                    cached_input_tokens: step_usage.cached_input_tokens,
                    cost_usd,
                });
            }
            if response.tool_calls.is_empty() {
                let now = self.clock.now_ms();
                let answer = Message::new(
                    new_id(now),
                    scope.conversation_id,
                    Role::Assistant,
                    response.text.clone(),
                    now,
                );
                self.store.append_messages(vec![answer]).await?;
                scope.emit(|| EventKind::Finish {
                    text: response.text.clone(),
                });
                let mut usage = TurnUsage::from(progress.usage);
                usage.cost_usd = self
                    .config
                    .prices
                    .cost_usd(self.model.model_name(), &progress.usage);
                return Ok(TurnResult {
                    turn_id: scope.turn_id.clone(),
                    text: response.text,
                    tool_calls: std::mem::take(&mut progress.records),
                    usage,
                    steps: progress.steps,
                });
            }
            let records = self.persist_tool_step(scope, response).await?;
            progress.records.extend(records);
        }
    }

    /// Streams one model call, forwarding text as `textDelta` events. On
    /// failure, the text streamed so far is kept in `progress`.
    async fn call_model(
        &self,
        scope: &TurnScope<'_>,
        request: &ModelRequest,
        progress: &mut Progress,
    ) -> Result<ModelResponse> {
        let mut parts = self.model.stream(request, scope.cancel).await?;
        let mut answer = Accumulator::new();
        while let Some(part) = parts.next().await {
            let part = match part {
                Ok(part) => part,
                Err(error) => {
                    progress.partial_text = Some(answer.text().to_owned()).filter(|t| !t.is_empty());
                    return Err(error);
                }
            };
            if let StreamPart::TextDelta(text) = &part {
                scope.emit(|| EventKind::TextDelta { text: text.clone() });
            }
            answer.push(&part);
        }
        Ok(answer.finish())
    }

    /// Persists an assistant message that asked for tools together with their
    /// results, in one step. No tools are registered yet, so each call is
    /// answered with an "Unknown tool" error the model can read.
    async fn persist_tool_step(
        &self,
        scope: &TurnScope<'_>,
        response: ModelResponse,
    ) -> Result<Vec<ToolCallRecord>> {
        let now = self.clock.now_ms();
        let mut ask = Message::new(
            new_id(now),
            scope.conversation_id,
            Role::Assistant,
            response.text,
            now,
        );
        ask.tool_calls = response.tool_calls.clone();
        let mut step = vec![ask];
        let mut records = Vec::new();
        for call in &response.tool_calls {
            let (content, record) = unknown_tool(call);
            let mut result = Message::new(new_id(now), scope.conversation_id, Role::ToolResult, content, now);
            result.tool_call_id = Some(call.id.clone());
            step.push(result);
            records.push(record);
        }
        self.store.append_messages(step).await?;
        Ok(records)
    }
}

fn unknown_tool(call: &ToolCall) -> (String, ToolCallRecord) {
    let message = format!("Unknown tool: {}", call.name);
    let content = serde_json::json!({ "error": message }).to_string();
    let record = ToolCallRecord {
        id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
        result: None,
        error: Some(message),
        duration_ms: 0.0,
        cached: false,
    };
    (content, record)
}
