//! One conversation turn: persist the user message, call the model, run the
//! tools it asks for, loop until it answers, persist every step as it happens.

use std::cell::RefCell;

use super::active_turns::HeldTurn;
use super::model_call::CallContext;
use super::sources::{quotes_check, source_check, turn_sources};
use super::tool_step::StepEnd;
use super::turn_scope::TurnScope;
use super::{Agent, TurnError, TurnOverrides, TurnResult, TurnState, TurnStatus};
use crate::approval::{OnNewMessage, PendingCall};
use crate::cancel::CancelToken;
use crate::domain::{Conversation, EgressPurpose, Mention, Message, Quoted, ReasoningBlock, Role, Source};
use crate::error::{Error, Result};
use crate::events::{EventKind, EventSink};
use crate::ids::new_id;
use crate::provider::{ModelRequest, ModelResponse};
use crate::retrieval::reader::context::{format_numbered_sources, format_sources};
use crate::storage::TurnWrite;
use crate::time::within;

/// The longest user message accepted, in characters.
pub const MAX_USER_MESSAGE_CHARS: usize = 200_000;

/// Per-call options of [`Agent::send`] and [`Agent::resolve_approvals`].
#[derive(Debug, Clone, Default)]
pub struct SendOptions {
    /// Tripping it aborts the model call and running tools (`Aborted`).
    pub cancel: CancelToken,
    /// The tenant for this turn, instead of the configured one.
    pub user_id: Option<String>,
    /// Things the user referred to, resolved into the system message of this turn.
    pub mentions: Vec<Mention>,
    /// Per-turn changes to the configuration (headless runs).
    pub overrides: TurnOverrides,
}

impl Agent {
    /// Runs one turn: the user says `text`; the model answers, calling tools as needed.
    ///
    /// The user message is persisted before the model is called, every tool
    /// step as it completes, the answer once it arrives. If anything fails,
    /// what was persisted stays, no answer is written (an aborted answer is
    /// kept, marked interrupted), and the error comes back with the steps done.
    /// If calls need a person's approval, the turn pauses and resolves with
    /// status `AwaitingApproval`; a conversation with a paused turn refuses
    /// new messages (`ApprovalPending`) until it is resolved or cancelled.
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
        self.run_turn(conversation_id, Some(text), options, events).await
    }

    /// A turn for `text` (stored first), or, with `None`, for the trailing user message (a retry).
    pub(super) async fn run_turn(
        &self,
        conversation_id: &str,
        text: Option<&str>,
        options: &SendOptions,
        events: &EventSink,
    ) -> Result<TurnResult, TurnError> {
        let _turn = self.acquire(conversation_id).await?;
        let conversation = self
            .store
            .conversation(conversation_id)
            .await?
            .ok_or_else(|| Error::not_found("conversation", conversation_id))?;
        // A retry has no new message: a paused turn still refuses it.
        let on_new = match text {
            Some(_) => {
                (options.overrides.approvals.on_new_message).unwrap_or(self.approvals().on_new_message)
            }
            None => OnNewMessage::Refuse,
        };
        self.refuse_if_paused(conversation_id, on_new).await?;
        let (text, store_user) = match text {
            Some(text) => (text.to_owned(), true),
            None => (self.trailing_user_text(conversation_id).await?, false),
        };
        // A turn a closed page cut off is closed now: the user moved on.
        self.abandon_open_turns(conversation_id).await?;
        let user_id = options.user_id.clone().or_else(|| self.config.user_id.clone());
        let now = self.clock.now_ms();
        let scope = TurnScope {
            conversation_id,
            turn_id: new_id(now),
            started_at: now,
            events,
            cancel: &options.cancel,
            user_id: user_id.clone(),
            open_step: RefCell::new(None),
            recorded: self.recorder(),
        };
        let mut state = TurnState {
            user_id,
            overrides: options.overrides.clone(),
            granted: self.granted_tools(conversation_id).await?,
            ..TurnState::default()
        };
        let limit = self.turn_limit(&state);
        let outcome = within(&*self.clock, limit, async {
            let user = store_user.then(|| {
                let now = self.clock.now_ms();
                Message::new(new_id(now), conversation_id, Role::User, text.as_str(), now)
            });
            self.begin_turn(&scope, &state, user, &options.mentions).await?;
            self.prepare_turn(&scope, &conversation, &mut state, &options.mentions, &text)
                .await?;
            self.run_loop(&scope, conversation, &mut state).await
        })
        .await;
        self.conclude(&scope, outcome, state).await
    }

    /// Waits for the conversation's turn lock, as long as `limits.lockWaitMs`
    /// allows; past that the request is withdrawn (`ConversationBusy`).
    pub(super) async fn acquire(&self, conversation_id: &str) -> Result<HeldTurn> {
        let request = self.locks.lock(conversation_id);
        let guard = match self.config.limits.lock_wait_ms {
            None => request.await,
            Some(wait) => match within(&*self.clock, Some(wait), request).await {
                Err(Error::Timeout { .. }) => Err(Error::ConversationBusy {
                    conversation_id: conversation_id.to_owned(),
                    waited_ms: wait,
                }),
                other => other,
            },
        }?;
        Ok(self.active.hold(conversation_id, guard))
    }

    /// The time limit of a turn (or of a resumed turn's remaining steps).
    pub(super) fn turn_limit(&self, state: &TurnState) -> Option<u64> {
        Some(
            state
                .overrides
                .turn_timeout_ms
                .unwrap_or(self.config.limits.turn_timeout_ms),
        )
    }

    /// The turn's result, or its failure with what was done: a tool step cut
    /// off mid-way is stored, an aborted answer's streamed text is kept (marked
    /// interrupted), and an `error` event is emitted.
    pub(super) async fn conclude(
        &self,
        scope: &TurnScope<'_>,
        outcome: Result<TurnResult>,
        mut state: TurnState,
    ) -> Result<TurnResult, TurnError> {
        let error = match outcome {
            Ok(result) => {
                self.keep_recorded_events(scope).await;
                return Ok(result);
            }
            Err(error) => error,
        };
        self.store_cut_step(scope, &mut state).await;
        self.end_open_turn(scope).await;
        if error == Error::Aborted {
            if let Some(partial) = &state.partial_text {
                self.keep_interrupted_answer(scope, partial).await;
            }
        }
        scope.emit(|| EventKind::Error {
            name: error.name().to_owned(),
            message: error.to_string(),
        });
        self.keep_recorded_events(scope).await;
        let usage = self.turn_usage(&state);
        Err(TurnError {
            error,
            partial_text: state.partial_text,
            steps: state.steps,
            tool_calls: state.records,
            usage,
            egress: state.egress,
        })
    }

    /// Model calls and tool steps until the model answers, a call needs approval, or a limit is hit.
    pub(super) async fn run_loop(
        &self,
        scope: &TurnScope<'_>,
        mut conversation: Conversation,
        state: &mut TurnState,
    ) -> Result<TurnResult> {
        let max_iterations = state
            .overrides
            .max_iterations
            .unwrap_or(self.config.limits.max_iterations);
        let period = self.period_start(scope.conversation_id, state).await?;
        if self.cost_unchecked(state) {
            scope.emit(|| EventKind::Warning {
                code: "budgetUnpriced".into(),
                message:
                    "a maxCostUsd budget is set but the model has no price in prices: cost is not checked"
                        .into(),
            });
        }
        loop {
            scope.cancel.check()?;
            if state.steps >= max_iterations {
                return Err(Error::MaxIterations {
                    limit: max_iterations,
                });
            }
            // Once the tool-call budget is spent, no tools are offered: the model must answer.
            let tools_left = state.tool_calls < self.config.limits.max_tool_calls;
            let request = self
                .build_request(scope, &conversation, state, (tools_left, period.as_ref()))
                .await?;
            let offered: Vec<String> = request.tools.iter().map(|t| t.name.clone()).collect();
            let book_id = conversation.book_id.clone();
            let call = CallContext {
                purpose: EgressPurpose::Answer,
                book_id: book_id.as_deref(),
                period: period.as_ref(),
            };
            if self.config.quotes.always {
                return self.answer_with_quotes(scope, &request, state, call, None).await;
            }
            let response = match self.counted_call(scope, &request, state, call).await {
                Ok(response) => response,
                Err(error) if self.quotes_stand_in(&conversation, state, &error) => {
                    return self
                        .answer_with_quotes(scope, &request, state, call, Some(error))
                        .await;
                }
                Err(error) => return Err(error),
            };
            if response.tool_calls.is_empty() {
                return self.finish(scope, &request, response, state, call).await;
            }
            match self
                .run_tool_step(scope, conversation, response, &offered, state)
                .await?
            {
                StepEnd::Continue(next) => conversation = next,
                StepEnd::Paused(pending) => return Ok(self.paused(scope, state, pending)),
            }
            scope.cancel.check()?;
        }
    }

    /// The result of a turn that paused for approval.
    pub(super) fn paused(
        &self,
        scope: &TurnScope<'_>,
        state: &TurnState,
        pending: Vec<PendingCall>,
    ) -> TurnResult {
        state.result(
            &scope.turn_id,
            TurnStatus::AwaitingApproval,
            String::new(),
            pending,
            self.turn_usage(state),
        )
    }

    /// Resolves the user message's mentions and retrieves its passages into `state`.
    pub(super) async fn prepare_turn(
        &self,
        scope: &TurnScope<'_>,
        conversation: &Conversation,
        state: &mut TurnState,
        mentions: &[Mention],
        text: &str,
    ) -> Result<()> {
        state.mentions = self.resolve_mentions(mentions, scope.cancel).await?;
        state.sources = self
            .retrieve_for_turn(conversation, text, &state.overrides, scope.cancel)
            .await?;
        let format = if self.config.cite_passages {
            format_numbered_sources
        } else {
            format_sources
        };
        state.passages = (!state.sources.is_empty()).then(|| format(&state.sources));
        Ok(())
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

    async fn finish(
        &self,
        scope: &TurnScope<'_>,
        request: &ModelRequest,
        response: ModelResponse,
        state: &mut TurnState,
        call: CallContext<'_>,
    ) -> Result<TurnResult> {
        let (response, data) = self
            .structured_answer(scope, request, response, state, call)
            .await?;
        let answer = Answer {
            text: response.text,
            reasoning: response.reasoning,
            data,
            quoted: None,
            quotes: Vec::new(),
        };
        self.store_answer(scope, request, state, call.book_id, answer)
            .await
    }

    /// Stores the turn's `answer` with its sources and their check, ends the
    /// turn (`finish` event) and gives its result.
    pub(super) async fn store_answer(
        &self,
        scope: &TurnScope<'_>,
        request: &ModelRequest,
        state: &mut TurnState,
        book_id: Option<&str>,
        answer: Answer,
    ) -> Result<TurnResult> {
        let Answer {
            text,
            reasoning,
            data,
            quoted,
            quotes,
        } = answer;
        let now = self.clock.now_ms();
        let mut message = Message::new(
            new_id(now),
            scope.conversation_id,
            Role::Assistant,
            text.clone(),
            now,
        );
        message.reasoning = reasoning;
        message.sources = turn_sources(state, book_id, self.config.max_tool_result_chars);
        message.source_check = match quoted {
            Some(_) => quotes_check(&quotes, &message.sources),
            None => source_check(&text, question_of(request), &message.sources, &state.sources),
        };
        if let Some(check) = message.source_check.as_mut() {
            let unsupported = !check.sentences.is_empty() && check.sentences.iter().all(|s| !s.supported);
            if unsupported && quoted.is_none() {
                check.quoted_answer = self.quotes_instead(request, state, book_id, scope.cancel).await?;
            }
        }
        message.quoted = quoted.clone();
        let (sources, source_check) = (message.sources.clone(), message.source_check.clone());
        // The answer ends the turn: its open-turn record goes in the same write.
        let write = TurnWrite {
            messages: vec![message],
            open_turn: Some(scope.end_of_turn()),
            ..TurnWrite::default()
        };
        self.store.commit(write).await?;
        scope.emit(|| EventKind::Finish {
            text: text.clone(),
            data: data.clone(),
            sources: sources.clone(),
            source_check: source_check.clone(),
            quoted: quoted.clone(),
        });
        let usage = self.turn_usage(state);
        let mut result = state.result(&scope.turn_id, TurnStatus::Completed, text, Vec::new(), usage);
        result.data = data;
        result.sources = sources;
        result.source_check = source_check;
        result.quoted = quoted;
        Ok(result)
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

/// A turn's final answer, before it is stored.
pub(super) struct Answer {
    /// Its text.
    pub text: String,
    /// The model's reasoning blocks.
    pub reasoning: Vec<ReasoningBlock>,
    /// The answer parsed against `send`'s `responseSchema`.
    pub data: Option<serde_json::Value>,
    /// Set when the answer is the book's own words.
    pub quoted: Option<Quoted>,
    /// Then, each quote as the answer writes it, with the passage it is from.
    pub quotes: Vec<(String, Source)>,
}

/// The last user message of `request`: the question its answer is checked against.
pub(super) fn question_of(request: &ModelRequest) -> &str {
    let question = request.messages.iter().rev().find(|m| m.role == Role::User);
    question.map_or("", |m| &m.content)
}
