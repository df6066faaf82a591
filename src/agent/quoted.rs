//! A book question answered with the book's own words: the quotes
//! `retrieval::quotes` chooses from the passages in front of the reader,
//! streamed and stored like any answer. The `quotes` provider answers so
//! always; any other answers so when its model fails before writing a word.

use super::model_call::CallContext;
use super::turn::{question_of, Answer};
use super::turn_scope::TurnScope;
use super::{Agent, TurnResult, TurnState};
use crate::cancel::CancelToken;
use crate::domain::{Conversation, QuoteReason, Quoted, SourceVia};
use crate::error::{Error, Result};
use crate::events::EventKind;
use crate::provider::ModelRequest;
use crate::retrieval::reader::context::ReaderContextPlan;

impl Agent {
    /// Whether the failure `error` of this turn's model call is answered
    /// with quotes instead: a book conversation, the fallback on, nothing
    /// streamed yet, and a failure of the model, not of the turn.
    pub(super) fn quotes_stand_in(
        &self,
        conversation: &Conversation,
        state: &TurnState,
        error: &Error,
    ) -> bool {
        let model_failed = matches!(
            error,
            Error::Connection { .. }
                | Error::RateLimited { .. }
                | Error::Api { .. }
                | Error::Auth { .. }
                | Error::Protocol { .. }
                | Error::Timeout { .. }
        );
        self.config.quotes.fallback
            && model_failed
            && conversation.book_id.is_some()
            && self.library.is_some()
            && state.partial_text.is_none()
    }

    /// Answers the turn with quotes from the book: `error` is the model's
    /// failure it stands in for (`None`: the `quotes` provider).
    pub(super) async fn answer_with_quotes(
        &self,
        scope: &TurnScope<'_>,
        request: &ModelRequest,
        state: &mut TurnState,
        call: CallContext<'_>,
        error: Option<Error>,
    ) -> Result<TurnResult> {
        let (Some(book_id), Some(library)) = (call.book_id, &self.library) else {
            return Err(error.unwrap_or_else(crate::provider::nothing_to_quote));
        };
        let question = question_of(request).to_owned();
        if !state.sources.iter().any(|s| s.via != SourceVia::ReaderPage) {
            let plan = self.quoting_plan(state);
            state.sources = library
                .reader_context(book_id, &question, &plan, scope.cancel)
                .await?;
        }
        if let Some(error) = &error {
            scope.emit(|| EventKind::Warning {
                code: "answeredWithQuotes".into(),
                message: format!("the model failed ({error}); the answer quotes the book instead"),
            });
        }
        let quotes = library
            .quoted_answer(book_id, &question, &state.sources, scope.cancel)
            .await?;
        // One delta a quote, as a model streams its paragraphs.
        for (i, line) in quotes.text.split("\n\n").enumerate() {
            let separator = if i == 0 { "" } else { "\n\n" };
            scope.emit(|| EventKind::TextDelta {
                text: format!("{separator}{line}"),
            });
        }
        let quoted = Quoted {
            reason: if error.is_some() {
                QuoteReason::Fallback
            } else {
                QuoteReason::Provider
            },
            error: error.map(|e| e.to_string()),
        };
        let lines = quotes
            .quotes
            .iter()
            .map(|q| (q.line(), state.sources[q.passage].clone()))
            .collect();
        let answer = Answer {
            text: quotes.text,
            reasoning: Vec::new(),
            data: None,
            quoted: Some(quoted),
            quotes: lines,
        };
        self.store_answer(scope, request, state, call.book_id, answer)
            .await
    }

    /// The quoted answer to show under a model's answer none of whose
    /// sentences its passages support: from the same passages.
    pub(super) async fn quotes_instead(
        &self,
        request: &ModelRequest,
        state: &TurnState,
        book_id: Option<&str>,
        cancel: &CancelToken,
    ) -> Result<Option<String>> {
        let (Some(book_id), Some(library)) = (book_id, &self.library) else {
            return Ok(None);
        };
        let quotes = library
            .quoted_answer(book_id, question_of(request), &state.sources, cancel)
            .await?;
        Ok((!quotes.quotes.is_empty()).then_some(quotes.text))
    }

    /// What to quote from when the turn's system message had only the
    /// reader's pages (`toolUse`): the measured default plan, within the
    /// turn's passage budget.
    fn quoting_plan(&self, state: &TurnState) -> ReaderContextPlan {
        ReaderContextPlan {
            reader_pages: self.config.reader_pages,
            passages: self.config.retrieved_passages,
            max_tokens: self.config.passage_budget(&state.overrides),
            ..ReaderContextPlan::default()
        }
    }
}
