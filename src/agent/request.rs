//! The request for each model call of a turn: system message, history window,
//! tools, and the passages `alwaysRetrieve` adds.

use super::budget::PeriodStart;
use super::compress::{summary_tokens, with_summary, SummarizedHistory, SummaryLimits};
use super::context::ContextStrategy;
use super::context_room::{default_output_reserve, fit_window, Overflow};
use super::system_prompt::{iso_date, system_message, SystemInputs};
use super::turn_scope::TurnScope;
use super::{read_window, Agent, RetrievalStrategy, TurnState};
use crate::cancel::CancelToken;
use crate::domain::{estimate_tokens, tool_definitions_tokens, Conversation, ToolDefinition};
use crate::domain::{Source, SourceVia, TurnOverrides};
use crate::error::Result;
use crate::events::EventKind;
use crate::provider::ModelRequest;
use crate::retrieval::reader::context::ReaderContextPlan;
use crate::tool::builtin::SEARCH_BOOK;

impl Agent {
    /// The request for the next model call: system message, history window,
    /// tools. Under `summarize` it may first make summary calls (counted in
    /// `state`'s usage and checked against the budgets in `period`).
    pub(super) async fn build_request(
        &self,
        scope: &TurnScope<'_>,
        conversation: &Conversation,
        state: &mut TurnState,
        (tools_left, period): (bool, Option<&PeriodStart>),
    ) -> Result<ModelRequest> {
        let book = match (&conversation.book_id, &self.library) {
            (Some(id), Some(library)) => Some(library.book(id).await?),
            _ => None,
        };
        let system = system_message(
            &self.config,
            &SystemInputs {
                conversation,
                user_id: state.user_id.as_deref(),
                mentions: &state.mentions,
                date: iso_date(self.clock.now_ms()),
                book: book.as_ref(),
                passages: state.passages.as_deref(),
            },
        )?;
        // Under `alwaysRetrieve` the passages are searched for the model: no
        // `search_book`, but the other tools stay (`allowedTools: []` for none).
        let book_tools = book.is_some() && self.config.retrieval == RetrievalStrategy::ToolUse;
        let tools = if tools_left {
            self.offered_tools(state, book_tools)
        } else {
            Vec::new()
        };
        let mut fixed_tokens = estimate_tokens(&system) + tool_definitions_tokens(&tools);
        let (system, window) = match self.config.context {
            ContextStrategy::Summarize {
                max_tokens,
                keep_recent,
            } => {
                let limits = SummaryLimits {
                    max_tokens,
                    keep_recent,
                    period,
                    book_id: conversation.book_id.as_deref(),
                };
                let SummarizedHistory { summary, messages } = self
                    .summarized_history(scope, state, fixed_tokens, limits)
                    .await?;
                fixed_tokens += summary.as_deref().map_or(0, summary_tokens);
                (with_summary(system, summary.as_deref()), messages)
            }
            // A bounded read of the newest messages: a step costs the window, not the conversation.
            strategy => {
                let window = read_window(&*self.store, scope.conversation_id, strategy, fixed_tokens).await?;
                (system, window)
            }
        };
        let max_tokens = self.config.max_output_tokens(&state.overrides);
        let messages = match self.config.model_profile.context_length {
            Some(length) => {
                let reserve = max_tokens.map_or_else(|| default_output_reserve(length), |n| n as usize);
                // The window is in the model's count; the estimate is scaled to it (see `calibration`).
                let room = self.calibration.room(length.saturating_sub(reserve));
                let (window, overflow) = fit_window(window, room + reserve, reserve, fixed_tokens);
                if let Some(overflow) = overflow {
                    let needed = self.calibration.scale(overflow.needed - reserve) + reserve;
                    scope.emit(|| {
                        overflow_warning(Overflow {
                            needed,
                            context_length: length,
                        })
                    });
                }
                window
            }
            None => window,
        };
        Ok(ModelRequest {
            system: Some(system),
            messages,
            tools,
            temperature: self.config.temperature(),
            max_tokens,
            response_format: state.overrides.response_format.clone(),
        })
    }

    /// The tools offered to the model this step: registered, allowed by the
    /// configuration and the turn, `search_book` only in a book conversation.
    fn offered_tools(&self, state: &TurnState, book_tools: bool) -> Vec<ToolDefinition> {
        let chosen = |name: &str| {
            state
                .overrides
                .tools
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == name))
        };
        self.tools.definitions(|name| {
            self.config.offers(name) && chosen(name) && (name != SEARCH_BOOK || book_tools)
        })
    }

    /// The book passages of a book conversation's system message: the
    /// reader's pages and, with `alwaysRetrieve`, the passages found for the
    /// user's message — never past the reader's page.
    pub(super) async fn retrieve_for_turn(
        &self,
        conversation: &Conversation,
        text: &str,
        overrides: &TurnOverrides,
        cancel: &CancelToken,
    ) -> Result<Vec<Source>> {
        let (Some(book_id), Some(library)) = (&conversation.book_id, &self.library) else {
            return Ok(Vec::new());
        };
        let always = self.config.retrieval == RetrievalStrategy::AlwaysRetrieve;
        let measured = ReaderContextPlan::default();
        let plan = ReaderContextPlan {
            reader_pages: self.config.reader_pages,
            passages: if always { self.config.retrieved_passages } else { 0 },
            introductions: if always { measured.introductions } else { 0 },
            max_tokens: self.config.passage_budget(overrides),
            via: SourceVia::AlwaysRetrieve,
            ..measured
        };
        library.reader_context(book_id, text, &plan, cancel).await
    }
}

/// The `warning` event of a request larger than the model's window.
fn overflow_warning(overflow: Overflow) -> EventKind {
    EventKind::Warning {
        code: "contextOverflow".into(),
        message: format!(
            "this request needs about {} tokens (answer room included) but modelProfile.contextLength is {}: \
             it is sent with only the latest message, and the model may refuse or cut it",
            overflow.needed, overflow.context_length
        ),
    }
}
