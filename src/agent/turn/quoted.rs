//! A book question answered with the book's own words: the quotes
//! `retrieval::quotes` chooses from the passages in front of the reader,
//! streamed and stored like any answer. The `quotes` provider answers so
//! always; any other answers so when its model fails before writing a word.

use super::finish::{question_of, Answer};
use super::model_call::CallContext;
use super::Turn;
use crate::agent::TurnResult;
use crate::domain::{Conversation, QuoteReason, Quoted, SourceVia};
use crate::error::{Error, Result};
use crate::events::EventKind;
use crate::provider::ModelRequest;
use crate::retrieval::reader::context::ReaderContextPlan;

impl Turn<'_> {
    /// Whether the failure `error` of this turn's model call is answered
    /// with quotes instead: a book conversation, the fallback on, nothing
    /// streamed yet, and a failure of the model, not of the turn.
    pub(super) fn quotes_stand_in(&self, conversation: &Conversation, error: &Error) -> bool {
        let model_failed = matches!(
            error,
            Error::Connection { .. }
                | Error::RateLimited { .. }
                | Error::Api { .. }
                | Error::Auth { .. }
                | Error::Protocol { .. }
                | Error::Timeout { .. }
        );
        self.agent.config.quotes.fallback
            && model_failed
            && conversation.book_id.is_some()
            && self.agent.library.is_some()
            && self.state.partial_text.is_none()
    }

    /// Answers the turn with quotes from the book: `error` is the model's
    /// failure it stands in for (`None`: the `quotes` provider).
    pub(super) async fn answer_with_quotes(
        &mut self,
        request: &ModelRequest,
        call: CallContext<'_>,
        error: Option<Error>,
    ) -> Result<TurnResult> {
        let (Some(book_id), Some(library)) = (call.book_id, &self.agent.library) else {
            return Err(error.unwrap_or_else(crate::provider::nothing_to_quote));
        };
        let question = question_of(request).to_owned();
        if !self.state.sources.iter().any(|s| s.via != SourceVia::ReaderPage) {
            let plan = self.quoting_plan();
            self.state.sources = library
                .reader_context(book_id, &question, &plan, &self.scope.cancel)
                .await?;
        }
        if let Some(error) = &error {
            self.scope.emit(|| EventKind::Warning {
                code: "answeredWithQuotes".into(),
                message: format!("the model failed ({error}); the answer quotes the book instead"),
            });
        }
        let quotes = library
            .quoted_answer(book_id, &question, &self.state.sources, &self.scope.cancel)
            .await?;
        self.stream_quotes(&quotes.text);
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
            .map(|q| (q.line(), self.state.sources[q.passage].clone()))
            .collect();
        let answer = Answer {
            text: quotes.text,
            reasoning: Vec::new(),
            data: None,
            quoted: Some(quoted),
            quotes: lines,
        };
        self.store_answer(request, call.book_id, answer).await
    }

    /// Emits a quoted answer's `text` one delta a quote, as a model streams its paragraphs.
    fn stream_quotes(&self, text: &str) {
        for (i, line) in text.split("\n\n").enumerate() {
            let separator = if i == 0 { "" } else { "\n\n" };
            self.scope.emit(|| EventKind::TextDelta {
                text: format!("{separator}{line}"),
            });
        }
    }

    /// The quoted answer to show under a model's answer none of whose
    /// sentences its passages support: from the same passages.
    pub(super) async fn quotes_instead(
        &self,
        request: &ModelRequest,
        book_id: Option<&str>,
    ) -> Result<Option<String>> {
        let (Some(book_id), Some(library)) = (book_id, &self.agent.library) else {
            return Ok(None);
        };
        let (question, sources) = (question_of(request), &self.state.sources);
        let quotes = library
            .quoted_answer(book_id, question, sources, &self.scope.cancel)
            .await?;
        Ok((!quotes.quotes.is_empty()).then_some(quotes.text))
    }

    /// What to quote from when the turn's system message had only the
    /// reader's pages (`toolUse`): the measured default plan, within the
    /// turn's passage budget.
    fn quoting_plan(&self) -> ReaderContextPlan {
        let config = &self.agent.config;
        ReaderContextPlan {
            reader_pages: config.reader_pages,
            passages: config.retrieved_passages,
            max_tokens: config.passage_budget(&self.state.overrides),
            ..ReaderContextPlan::default()
        }
    }
}
