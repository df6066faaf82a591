//! A turn's last step: the model's answer (a structured one checked, see
//! `structured`) stored with its sources and their check, the `finish`
//! event, and the turn's result.

use super::model_call::CallContext;
use super::Turn;
use crate::agent::sources::{quotes_check, source_check, turn_sources};
use crate::agent::{TurnResult, TurnStatus};
use crate::domain::{Message, Quoted, ReasoningBlock, Role, Source, SourceCheck};
use crate::error::Result;
use crate::events::EventKind;
use crate::provider::{ModelRequest, ModelResponse};
use crate::runtime::ids::new_id;
use crate::storage::TurnWrite;

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

impl Turn<'_> {
    /// Ends the turn with the model's `response` to `request`, which called no tools.
    pub(super) async fn finish(
        &mut self,
        request: &ModelRequest,
        response: ModelResponse,
        call: CallContext<'_>,
    ) -> Result<TurnResult> {
        let (response, data) = self.structured_answer(request, response, call).await?;
        let answer = Answer {
            text: response.text,
            reasoning: response.reasoning,
            data,
            quoted: None,
            quotes: Vec::new(),
        };
        self.store_answer(request, call.book_id, answer).await
    }

    /// Stores the turn's `answer` with its sources and their check, ends the
    /// turn (`finish` event) and gives its result.
    pub(super) async fn store_answer(
        &mut self,
        request: &ModelRequest,
        book_id: Option<&str>,
        answer: Answer,
    ) -> Result<TurnResult> {
        let message = self.answer_message(request, book_id, &answer).await?;
        let (sources, source_check) = (message.sources.clone(), message.source_check.clone());
        // The answer ends the turn: its open-turn record goes in the same write.
        let write = TurnWrite {
            messages: vec![message],
            open_turn: Some(self.scope.end_of_turn()),
            ..TurnWrite::default()
        };
        self.agent.store.commit(write).await?;
        let Answer {
            text, data, quoted, ..
        } = answer;
        self.scope.emit(|| EventKind::Finish {
            text: text.clone(),
            data: data.clone(),
            sources: sources.clone(),
            source_check: source_check.clone(),
            quoted: quoted.clone(),
        });
        let mut result = self.result(TurnStatus::Completed, text, Vec::new());
        result.data = data;
        result.sources = sources;
        result.source_check = source_check;
        result.quoted = quoted;
        Ok(result)
    }

    /// The stored message of `answer`, with its sources and their check.
    async fn answer_message(
        &self,
        request: &ModelRequest,
        book_id: Option<&str>,
        answer: &Answer,
    ) -> Result<Message> {
        let now = self.agent.clock.now_ms();
        let conversation_id = &self.scope.conversation_id;
        let text = answer.text.clone();
        let mut message = Message::new(new_id(now), conversation_id, Role::Assistant, text, now);
        message.reasoning = answer.reasoning.clone();
        let max_chars = self.agent.config.max_tool_result_chars;
        message.sources = turn_sources(&self.state, book_id, max_chars);
        message.source_check = self
            .source_check(request, book_id, answer, &message.sources)
            .await?;
        message.quoted = answer.quoted.clone();
        Ok(message)
    }

    /// The check of `answer` against its `sources`; under a model's answer none
    /// of whose sentences they support, the quoted answer from them.
    async fn source_check(
        &self,
        request: &ModelRequest,
        book_id: Option<&str>,
        answer: &Answer,
        sources: &[Source],
    ) -> Result<Option<SourceCheck>> {
        let mut check = match answer.quoted {
            Some(_) => quotes_check(&answer.quotes, sources),
            None => source_check(&answer.text, question_of(request), sources, &self.state.sources),
        };
        if let Some(check) = check.as_mut() {
            let unsupported = !check.sentences.is_empty() && check.sentences.iter().all(|s| !s.supported);
            if unsupported && answer.quoted.is_none() {
                check.quoted_answer = self.quotes_instead(request, book_id).await?;
            }
        }
        Ok(check)
    }
}
