//! One conversation turn: persist the user message, call the model, run the
//! tools it asks for, loop until it answers, persist every step as it happens.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures::StreamExt;

use super::system_prompt::{iso_date, system_message, SystemInputs};
use super::{history_window, Agent, RetrievalStrategy, ToolCallRecord, TurnError, TurnResult, TurnUsage};
use crate::cancel::CancelToken;
use crate::domain::{Conversation, Mention, Message, Role, ToolCall, Usage};
use crate::error::{Error, Result};
use crate::events::{Event, EventKind, EventSink};
use crate::ids::new_id;
use crate::provider::{Accumulator, FinishReason, ModelRequest, ModelResponse, StreamPart};
use crate::retrieval::library::SearchOptions;
use crate::retrieval::search_tool::{format_passages, SEARCH_BOOK};
use crate::time::within;
use crate::tool::{
    redact_arguments, run_tool_calls, ToolContext, ToolOutcome, ToolRunContext, ToolRunSettings,
};

/// The longest user message accepted, in characters.
pub const MAX_USER_MESSAGE_CHARS: usize = 200_000;

/// Per-call options of [`Agent::send`].
#[derive(Debug, Clone, Default)]
pub struct SendOptions {
    /// Tripping it aborts the model call and running tools (`Aborted`).
    pub cancel: CancelToken,
    /// The tenant for this turn, instead of the configured one.
    pub user_id: Option<String>,
    /// Things the user referred to, resolved into the system message of this turn.
    pub mentions: Vec<Mention>,
}

/// Identifies the turn in progress, for events and tools.
struct TurnScope<'a> {
    conversation_id: &'a str,
    turn_id: String,
    events: &'a EventSink,
    cancel: &'a CancelToken,
    user_id: Option<String>,
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
    tool_calls: u32,
    partial_text: Option<String>,
}

fn finish_reason_name(reason: Option<&FinishReason>) -> String {
    match reason {
        None | Some(FinishReason::Stop) => "stop".into(),
        Some(FinishReason::ToolCalls) => "toolCalls".into(),
        Some(FinishReason::Length) => "length".into(),
        Some(FinishReason::ContentFilter) => "contentFilter".into(),
        Some(FinishReason::Other(other)) => other.clone(),
    }
}

impl Agent {
    /// Runs one turn: the user says `text`; the model answers, calling tools as needed.
    ///
    /// The user message is persisted before the model is called, every tool
    /// step as it completes, the answer once it arrives. If anything fails,
    /// what was persisted stays, no answer is written (an aborted answer is
    /// kept, marked interrupted), and the error comes back with the steps done.
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
        let lock = self.locks.lock_for(conversation_id);
        let _turn = match self.config.limits.lock_wait_ms {
            None => lock.lock().await,
            Some(wait) => within(&*self.clock, Some(wait), async { Ok(lock.lock().await) })
                .await
                .map_err(|_| Error::ConversationBusy {
                    conversation_id: conversation_id.to_owned(),
                    waited_ms: wait,
                })?,
        };
        let conversation = self
            .store
            .conversation(conversation_id)
            .await?
            .ok_or_else(|| Error::not_found("conversation", conversation_id))?;
        let scope = TurnScope {
            conversation_id,
            turn_id: new_id(self.clock.now_ms()),
            events,
            cancel: &options.cancel,
            user_id: options.user_id.clone().or_else(|| self.config.user_id.clone()),
        };
        let mut progress = Progress::default();
        let limit = Some(self.config.limits.turn_timeout_ms);
        let outcome = within(
            &*self.clock,
            limit,
            self.run_turn(&scope, conversation, text, options, &mut progress),
        )
        .await;
        let error = match outcome {
            Ok(result) => return Ok(result),
            Err(error) => error,
        };
        if error == Error::Aborted {
            if let Some(partial) = &progress.partial_text {
                self.keep_interrupted_answer(&scope, partial).await;
            }
        }
        scope.emit(|| EventKind::Error {
            name: error.name().to_owned(),
            message: error.to_string(),
        });
        Err(TurnError {
            error,
            partial_text: progress.partial_text,
            steps: progress.steps,
            tool_calls: progress.records,
        })
    }

    async fn run_turn(
        &self,
        scope: &TurnScope<'_>,
        mut conversation: Conversation,
        text: &str,
        options: &SendOptions,
        progress: &mut Progress,
    ) -> Result<TurnResult> {
        let now = self.clock.now_ms();
        let user = Message::new(new_id(now), scope.conversation_id, Role::User, text, now);
        self.store.append_messages(vec![user]).await?;
        let mentions = self.resolve_mentions(&options.mentions, scope.cancel).await?;
        let passages = self.retrieve_for_turn(&conversation, text, scope.cancel).await?;

        loop {
            scope.cancel.check()?;
            if progress.steps >= self.config.limits.max_iterations {
                return Err(Error::MaxIterations {
                    limit: self.config.limits.max_iterations,
                });
            }
            progress.steps += 1;
            let step = progress.steps;
            scope.emit(|| EventKind::StepStart { step });

            // Once the tool-call budget is spent, no tools are offered: the model must answer.
            let tools_left = progress.tool_calls < self.config.limits.max_tool_calls;
            let request = self
                .build_request(scope, &conversation, &mentions, passages.as_deref(), tools_left)
                .await?;
            let offered: Vec<String> = request.tools.iter().map(|t| t.name.clone()).collect();
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
            scope.emit(|| EventKind::StepFinish {
                step,
                finish_reason: finish_reason_name(response.finish_reason.as_ref()),
                tool_calls: response.tool_calls.len(),
            });

            if response.tool_calls.is_empty() {
                return self.finish(scope, response.text, progress).await;
            }
            conversation = self
                .run_tool_step(scope, conversation, response, &offered, progress)
                .await?;
            scope.cancel.check()?;
        }
    }

    async fn resolve_mentions(
        &self,
        mentions: &[Mention],
        cancel: &CancelToken,
    ) -> Result<Vec<(Mention, String)>> {
        if mentions.is_empty() {
            return Ok(Vec::new());
        }
        let resolver = self.mentions.as_ref().ok_or_else(|| {
            Error::config("send was given mentions, but Lectern.open had no resolveMention")
        })?;
        let mut resolved = Vec::with_capacity(mentions.len());
        for mention in mentions {
            let content = cancel.run(resolver.resolve(mention)).await?;
            resolved.push((mention.clone(), content));
        }
        Ok(resolved)
    }

    /// The request for the next model call: system message, history window, tools.
    async fn build_request(
        &self,
        scope: &TurnScope<'_>,
        conversation: &Conversation,
        mentions: &[(Mention, String)],
        passages: Option<&str>,
        tools_left: bool,
    ) -> Result<ModelRequest> {
        let book = match (&conversation.book_id, &self.library) {
            (Some(id), Some(library)) => Some(library.book(id).await?),
            _ => None,
        };
        let system = system_message(
            &self.config,
            &SystemInputs {
                conversation,
                user_id: scope.user_id.as_deref(),
                mentions,
                date: iso_date(self.clock.now_ms()),
                book: book.as_ref(),
                passages,
            },
        )?;
        let history = self.store.messages(scope.conversation_id).await?;
        let window = history_window(&history, self.config.context, super::estimate_tokens(&system));
        let book_tools = book.is_some() && self.config.retrieval == RetrievalStrategy::ToolUse;
        let always_retrieve = book.is_some() && self.config.retrieval == RetrievalStrategy::AlwaysRetrieve;
        let tools = if tools_left && !always_retrieve {
            self.tools
                .definitions(|name| self.config.offers(name) && (name != SEARCH_BOOK || book_tools))
        } else {
            Vec::new()
        };
        Ok(ModelRequest {
            system: Some(system),
            messages: window.to_vec(),
            tools,
            temperature: self.config.temperature(),
            max_tokens: None,
        })
    }

    /// With `alwaysRetrieve`, the passages of the conversation's book for the
    /// user's message, bounded by the reader's page.
    async fn retrieve_for_turn(
        &self,
        conversation: &Conversation,
        text: &str,
        cancel: &CancelToken,
    ) -> Result<Option<String>> {
        let (Some(book_id), Some(library)) = (&conversation.book_id, &self.library) else {
            return Ok(None);
        };
        if self.config.retrieval != RetrievalStrategy::AlwaysRetrieve {
            return Ok(None);
        }
        let book = library.book(book_id).await?;
        let options = SearchOptions {
            book_ids: Some(vec![book_id.clone()]),
            k: Some(5),
            max_page: Some(book.current_page),
        };
        let results = library.search(text, &options, cancel).await?;
        Ok(Some(format_passages(&results)))
    }

    /// Streams one model call, forwarding text and tool-call pieces as events.
    /// On failure, the text streamed so far is kept in `progress`.
    async fn call_model(
        &self,
        scope: &TurnScope<'_>,
        request: &ModelRequest,
        progress: &mut Progress,
    ) -> Result<ModelResponse> {
        progress.partial_text = None;
        let mut parts = self.model.stream(request, scope.cancel).await?;
        let mut answer = Accumulator::new();
        let mut calls: HashMap<usize, (String, String)> = HashMap::new();
        while let Some(part) = parts.next().await {
            let part = match part {
                Ok(part) => part,
                Err(error) => {
                    progress.partial_text = Some(answer.text().to_owned()).filter(|t| !t.is_empty());
                    return Err(error);
                }
            };
            match &part {
                StreamPart::TextDelta(text) => scope.emit(|| EventKind::TextDelta { text: text.clone() }),
                StreamPart::ToolCallStart { index, id, name } => {
                    calls.insert(*index, (id.clone(), name.clone()));
                }
                StreamPart::ToolCallDelta { index, arguments } if scope.events.is_listening() => {
                    let known = calls.get(index);
                    scope.emit(|| EventKind::ToolCallDelta {
                        index: *index,
                        call_id: known.map(|(id, _)| id.clone()),
                        tool_name: known.map(|(_, name)| name.clone()),
                        arguments_delta: if self.config.redact_arguments.is_empty() {
                            arguments.clone()
                        } else {
                            // Fragments cannot be redacted field by field: hide them.
                            String::new()
                        },
                    });
                }
                _ => {}
            }
            answer.push(&part);
        }
        Ok(answer.finish())
    }

    /// Runs the tool calls of a response and persists the step (the call and
    /// its results, in one write). Returns the conversation as it now is.
    async fn run_tool_step(
        &self,
        scope: &TurnScope<'_>,
        mut conversation: Conversation,
        response: ModelResponse,
        offered: &[String],
        progress: &mut Progress,
    ) -> Result<Conversation> {
        let limit = self.config.limits.max_tool_calls;
        let room = limit.saturating_sub(progress.tool_calls) as usize;
        let (runnable, refused) = response.tool_calls.split_at(room.min(response.tool_calls.len()));
        progress.tool_calls += response.tool_calls.len() as u32;

        let working_state = Rc::new(RefCell::new(None));
        let settings = ToolRunSettings {
            offered: offered.to_vec(),
            parallel: self.config.parallel_tool_calls,
            default_timeout_ms: self.config.limits.tool_timeout_ms,
            redact: self.config.redact_arguments.clone(),
        };
        let emit = |kind: EventKind| scope.emit(|| kind);
        let run = ToolRunContext {
            registry: &self.tools,
            cache: &self.cache,
            clock: &*self.clock,
            tool_context: ToolContext {
                conversation_id: scope.conversation_id.to_owned(),
                user_id: scope.user_id.clone(),
                book_id: conversation.book_id.clone(),
                cancel: scope.cancel.clone(),
                working_state: working_state.clone(),
            },
            emit: &emit,
        };
        let mut outcomes = run_tool_calls(runnable, &settings, &run).await;
        outcomes.extend(
            refused
                .iter()
                .map(|call| refused_outcome(call, limit, &settings.redact)),
        );

        let now = self.clock.now_ms();
        let mut ask = Message::new(
            new_id(now),
            scope.conversation_id,
            Role::Assistant,
            response.text,
            now,
        );
        ask.tool_calls = outcomes
            .iter()
            .map(|o| ToolCall {
                arguments: o.record.arguments.clone(),
                ..o.call.clone()
            })
            .collect();
        let mut step = vec![ask];
        for outcome in &outcomes {
            let mut result = Message::new(
                new_id(now),
                scope.conversation_id,
                Role::ToolResult,
                outcome.content.clone(),
                now,
            );
            result.tool_call_id = Some(outcome.call.id.clone());
            step.push(result);
        }
        self.store.append_messages(step).await?;
        progress.records.extend(outcomes.into_iter().map(|o| o.record));

        let new_state = working_state.borrow_mut().take();
        if let Some(state) = new_state {
            conversation.working_state = Some(state).filter(|s| !s.is_null());
            self.store.update_conversation(&conversation).await?;
        }
        if !refused.is_empty() {
            return Err(Error::MaxToolCalls { limit });
        }
        Ok(conversation)
    }

    async fn finish(
        &self,
        scope: &TurnScope<'_>,
        text: String,
        progress: &mut Progress,
    ) -> Result<TurnResult> {
        let now = self.clock.now_ms();
        let answer = Message::new(
            new_id(now),
            scope.conversation_id,
            Role::Assistant,
            text.clone(),
            now,
        );
        self.store.append_messages(vec![answer]).await?;
        scope.emit(|| EventKind::Finish { text: text.clone() });
        let mut usage = TurnUsage::from(progress.usage);
        usage.cost_usd = self
            .config
            .prices
            .cost_usd(self.model.model_name(), &progress.usage);
        Ok(TurnResult {
            turn_id: scope.turn_id.clone(),
            text,
            tool_calls: std::mem::take(&mut progress.records),
            usage,
            steps: progress.steps,
        })
    }

    /// Keeps the text an aborted answer had streamed, marked interrupted. Best
    /// effort: the abort is what the caller hears about either way.
    async fn keep_interrupted_answer(&self, scope: &TurnScope<'_>, partial: &str) {
        let now = self.clock.now_ms();
        let mut answer = Message::new(new_id(now), scope.conversation_id, Role::Assistant, partial, now);
        answer.interrupted = true;
        let _ = self.store.append_messages(vec![answer]).await;
    }
}

/// The outcome of a call past the turn's tool-call limit: not run.
fn refused_outcome(call: &ToolCall, limit: u32, redact: &[String]) -> ToolOutcome {
    let message = format!("Not run: the limit of {limit} tool calls per turn was reached");
    ToolOutcome {
        call: call.clone(),
        content: serde_json::json!({ "error": message }).to_string(),
        record: ToolCallRecord {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: redact_arguments(&call.arguments, redact),
            result: None,
            error: Some(message),
            duration_ms: 0.0,
            cached: false,
        },
    }
}
