//! `send` and `retry`'s entry: the turn's lock, the checks before it, and
//! the [`Turn`] they make and run.

use super::active_turns::HeldTurn;
use super::turn::{Turn, TurnScope};
use super::{Agent, TurnError, TurnOverrides, TurnResult, TurnState};
use crate::approval::OnNewMessage;
use crate::domain::{Conversation, Mention, Message, Role};
use crate::error::{Error, Result};
use crate::events::EventSink;
use crate::runtime::cancel::CancelToken;
use crate::runtime::ids::new_id;
use crate::runtime::time::within;

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
        let conversation = self.stored_conversation(conversation_id).await?;
        self.refuse_if_paused(conversation_id, self.on_new_message(text, options))
            .await?;
        let (text, store_user) = match text {
            Some(text) => (text.to_owned(), true),
            None => (self.trailing_user_text(conversation_id).await?, false),
        };
        // A turn a closed page cut off is closed now: the user moved on.
        self.abandon_open_turns(conversation_id).await?;
        let mut turn = self
            .new_turn(conversation_id, options)
            .await?
            .heard_by(events, &options.cancel);
        let outcome = within(&*self.clock, turn.limit(), async {
            let user = store_user.then(|| {
                let now = self.clock.now_ms();
                Message::new(new_id(now), conversation_id, Role::User, text.as_str(), now)
            });
            turn.begin(user, &options.mentions).await?;
            turn.prepare(&conversation, &options.mentions, &text).await?;
            turn.run(conversation).await
        })
        .await;
        turn.conclude(outcome).await
    }

    /// What a new message does to a paused turn: `onNewMessage`; a retry
    /// (no new message) is refused while one waits.
    fn on_new_message(&self, text: Option<&str>, options: &SendOptions) -> OnNewMessage {
        match text {
            Some(_) => {
                (options.overrides.approvals.on_new_message).unwrap_or(self.approvals().on_new_message)
            }
            None => OnNewMessage::Refuse,
        }
    }

    /// A new turn on `conversation_id` with `options`' tenant and overrides.
    async fn new_turn(&self, conversation_id: &str, options: &SendOptions) -> Result<Turn<'_>> {
        let user_id = options.user_id.clone().or_else(|| self.config.user_id.clone());
        let now = self.clock.now_ms();
        let scope = TurnScope::new(conversation_id, new_id(now), now);
        let state = TurnState {
            user_id,
            overrides: options.overrides.clone(),
            granted: self.granted_tools(conversation_id).await?,
            ..TurnState::default()
        };
        Ok(Turn::new(self, scope, state))
    }

    /// The stored conversation; `NotFound` if there is none.
    pub(super) async fn stored_conversation(&self, conversation_id: &str) -> Result<Conversation> {
        self.store
            .conversation(conversation_id)
            .await?
            .ok_or_else(|| Error::not_found("conversation", conversation_id))
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

    /// The time limit of a turn (or of a resumed turn's remaining steps) with `overrides`.
    pub(super) fn turn_limit(&self, overrides: &TurnOverrides) -> Option<u64> {
        Some(
            overrides
                .turn_timeout_ms
                .unwrap_or(self.config.limits.turn_timeout_ms),
        )
    }
}
