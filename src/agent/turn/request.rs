//! The request for each model call of a turn: system message, history window,
//! tools, and the passages `alwaysRetrieve` adds.

use super::Turn;
use crate::agent::budget::PeriodStart;
use crate::agent::compress::{summary_tokens, with_summary, SummarizedHistory, SummaryLimits};
use crate::agent::context::ContextStrategy;
use crate::agent::context_room::{default_output_reserve, fit_window, Overflow};
use crate::agent::system_prompt::{iso_date, system_message, SystemInputs};
use crate::agent::{read_window, RetrievalStrategy};
use crate::domain::{estimate_tokens, tool_definitions_tokens, Conversation, Message, ToolDefinition};
use crate::error::Result;
use crate::events::EventKind;
use crate::provider::ModelRequest;
use crate::tool::builtin::SEARCH_BOOK;

/// What a request is made of before its history is fitted to the model's window.
struct Draft {
    /// The system message (with the summary, under `summarize`).
    system: String,
    /// The history, oldest first.
    window: Vec<Message>,
    /// The tools offered.
    tools: Vec<ToolDefinition>,
    /// The estimated tokens of the system message and the tools.
    fixed_tokens: usize,
}

impl Turn<'_> {
    /// The request for the next model call: system message, history window,
    /// tools (none once `tools_left` is false). Under `summarize` it may first
    /// make summary calls (counted in the turn's usage and checked against the
    /// budgets in `period`).
    pub(super) async fn build_request(
        &mut self,
        conversation: &Conversation,
        tools_left: bool,
        period: Option<&PeriodStart>,
    ) -> Result<ModelRequest> {
        let draft = self.draft(conversation, tools_left, period).await?;
        let config = &self.agent.config;
        let max_tokens = config.max_output_tokens(&self.state.overrides);
        let messages = self.fit(draft.window, max_tokens, draft.fixed_tokens);
        Ok(ModelRequest {
            system: Some(draft.system),
            messages,
            tools: draft.tools,
            temperature: config.temperature(),
            max_tokens,
            response_format: self.state.overrides.response_format.clone(),
            model: self.state.overrides.model.clone(),
            tools_called: self.state.tool_calls > 0,
        })
    }

    /// The system message, tools and history of the next request, before the
    /// history is fitted to the model's window.
    async fn draft(
        &mut self,
        conversation: &Conversation,
        tools_left: bool,
        period: Option<&PeriodStart>,
    ) -> Result<Draft> {
        let agent = self.agent;
        let book = match (&conversation.book_id, &agent.library) {
            (Some(id), Some(library)) => Some(library.book(id).await?),
            _ => None,
        };
        let system = system_message(
            &agent.config,
            &SystemInputs {
                conversation,
                user_id: self.state.user_id.as_deref(),
                mentions: &self.state.mentions,
                date: iso_date(agent.clock.now_ms()),
                book: book.as_ref(),
                passages: self.state.passages.as_deref(),
            },
        )?;
        // Under `alwaysRetrieve` the passages are searched for the model: no
        // `search_book`, but the other tools stay (`allowedTools: []` for none).
        let book_tools = book.is_some() && agent.config.retrieval == RetrievalStrategy::ToolUse;
        let tools = if tools_left {
            self.offered_tools(book_tools)
        } else {
            Vec::new()
        };
        let fixed_tokens = estimate_tokens(&system) + tool_definitions_tokens(&tools);
        let draft = Draft {
            system,
            window: Vec::new(),
            tools,
            fixed_tokens,
        };
        self.add_history(draft, conversation, period).await
    }

    /// `draft` with the conversation's history: under `summarize`, the
    /// summary (made or extended first, if it must be) in the system message
    /// and the messages after it; otherwise the newest messages that fit.
    async fn add_history(
        &mut self,
        mut draft: Draft,
        conversation: &Conversation,
        period: Option<&PeriodStart>,
    ) -> Result<Draft> {
        let agent = self.agent;
        match agent.config.context {
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
                let SummarizedHistory { summary, messages } =
                    self.summarized_history(draft.fixed_tokens, limits).await?;
                draft.fixed_tokens += summary.as_deref().map_or(0, summary_tokens);
                draft.system = with_summary(draft.system, summary.as_deref());
                draft.window = messages;
            }
            // A bounded read of the newest messages: a step costs the window, not the conversation.
            strategy => {
                let (store, conversation_id) = (&*agent.store, &self.scope.conversation_id);
                draft.window = read_window(store, conversation_id, strategy, draft.fixed_tokens).await?;
            }
        }
        Ok(draft)
    }

    /// `window` cut to what fits `modelProfile.contextLength` next to
    /// `fixed_tokens` and the answer's room (`max_tokens`), with a `warning`
    /// when even the latest message does not.
    fn fit(&self, window: Vec<Message>, max_tokens: Option<u32>, fixed_tokens: usize) -> Vec<Message> {
        let calibration = &self.agent.calibration;
        let Some(length) = self.agent.config.model_profile.context_length else {
            return window;
        };
        let reserve = max_tokens.map_or_else(|| default_output_reserve(length), |n| n as usize);
        // The window is in the model's count; the estimate is scaled to it (see `calibration`).
        let room = calibration.room(length.saturating_sub(reserve));
        let (window, overflow) = fit_window(window, room + reserve, reserve, fixed_tokens);
        if let Some(overflow) = overflow {
            let needed = calibration.scale(overflow.needed - reserve) + reserve;
            self.scope.emit(|| {
                overflow_warning(Overflow {
                    needed,
                    context_length: length,
                })
            });
        }
        window
    }

    /// The tools offered to the model this step: registered, allowed by the
    /// configuration and the turn, `search_book` only in a book conversation.
    fn offered_tools(&self, book_tools: bool) -> Vec<ToolDefinition> {
        let config = &self.agent.config;
        let chosen = |name: &str| {
            self.state
                .overrides
                .tools
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == name))
        };
        self.agent
            .tools
            .definitions(|name| config.offers(name) && chosen(name) && (name != SEARCH_BOOK || book_tools))
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
