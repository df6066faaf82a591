//! The request for each model call of a turn: system message, history window,
//! tools, and the passages `alwaysRetrieve` adds.

use super::system_prompt::{iso_date, system_message, SystemInputs};
use super::turn::TurnScope;
use super::{read_window, Agent, RetrievalStrategy, TurnState};
use crate::cancel::CancelToken;
use crate::domain::Conversation;
use crate::error::Result;
use crate::provider::ModelRequest;
use crate::retrieval::budget::within_budget;
use crate::retrieval::library::SearchOptions;
use crate::retrieval::search_tool::{format_passages, SEARCH_BOOK};

impl Agent {
    /// The request for the next model call: system message, history window, tools.
    pub(super) async fn build_request(
        &self,
        scope: &TurnScope<'_>,
        conversation: &Conversation,
        state: &TurnState,
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
                user_id: state.user_id.as_deref(),
                mentions: &state.mentions,
                date: iso_date(self.clock.now_ms()),
                book: book.as_ref(),
                passages: state.passages.as_deref(),
            },
        )?;
        // A bounded read of the newest messages: a step costs the window, not the conversation.
        let window = read_window(
            &*self.store,
            scope.conversation_id,
            self.config.context,
            super::estimate_tokens(&system),
        )
        .await?;
        let book_tools = book.is_some() && self.config.retrieval == RetrievalStrategy::ToolUse;
        let always_retrieve = book.is_some() && self.config.retrieval == RetrievalStrategy::AlwaysRetrieve;
        let tools = if tools_left && !always_retrieve {
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
        } else {
            Vec::new()
        };
        Ok(ModelRequest {
            system: Some(system),
            messages: window,
            tools,
            temperature: self.config.temperature(),
            max_tokens: None,
        })
    }

    /// With `alwaysRetrieve`, the passages of the conversation's book for the
    /// user's message, bounded by the reader's page.
    pub(super) async fn retrieve_for_turn(
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
            mode: None,
        };
        let results = library.search(text, &options, cancel).await?;
        let results = within_budget(results, self.config.max_context_tokens);
        Ok(Some(format_passages(&results)))
    }
}
