//! A turn's history under the `summarize` context strategy (see
//! `agent::compress`): what no longer fits is folded into the stored summary
//! by summary calls — checked against the budgets and counted like any call —
//! or, if a call fails, dropped with a `warning`.

use super::Turn;
use crate::agent::compress::{
    chunks, keep_recent_start, messages_after, summary_room, summary_tokens, SummarizedHistory,
    SummaryLimits, MAX_SUMMARY_CALLS,
};
use crate::agent::context::{history_window, ContextStrategy};
use crate::agent::egress::Carried;
use crate::domain::{estimate_tokens, ContextSummary, EgressPurpose, Message};
use crate::error::{Error, Result};
use crate::events::EventKind;
use crate::provider::accumulate;

impl Turn<'_> {
    /// The history for the next request under `summarize`: the stored summary
    /// and the messages after it, if they fit `max_tokens` next to
    /// `fixed_tokens` (system message and tools); otherwise everything older
    /// than the newest `keep_recent` messages (and than what fits) is first
    /// folded into the summary.
    pub(super) async fn summarized_history(
        &mut self,
        fixed_tokens: usize,
        limits: SummaryLimits<'_>,
    ) -> Result<SummarizedHistory> {
        let SummaryLimits {
            max_tokens,
            keep_recent,
            ..
        } = limits;
        let stored = self
            .agent
            .store
            .context_summary(&self.scope.conversation_id)
            .await?;
        let through = stored.as_ref().map(|s| s.through_seq);
        let live = messages_after(&*self.agent.store, &self.scope.conversation_id, through).await?;
        let budget = ContextStrategy::TokenBudget { max_tokens };
        let stored_tokens = stored.as_ref().map_or(0, |s| summary_tokens(&s.text));
        if history_window(&live, budget, fixed_tokens + stored_tokens).len() == live.len() {
            let summary = stored.map(|s| s.text);
            return Ok(SummarizedHistory {
                summary,
                messages: live,
            });
        }
        let room = summary_room(max_tokens);
        let window_start = live.len() - history_window(&live, budget, fixed_tokens + room).len();
        let cut = window_start.max(keep_recent_start(&live, keep_recent));
        let (summary, reached) = self.fold_into_summary(limits, stored, &live[..cut]).await?;
        let text = summary.map(|s| s.text);
        let used = fixed_tokens + text.as_deref().map_or(0, summary_tokens);
        let messages = history_window(&live[reached..], budget, used).to_vec();
        Ok(SummarizedHistory {
            summary: text,
            messages,
        })
    }

    /// Extends `stored` with `dropped`, one summary call a chunk, oldest
    /// first. Returns the summary as far as it got and how many of `dropped`
    /// it covers; a failed call ends the folding (the rest is dropped from
    /// this request) but not the turn. Only an abort is an error.
    async fn fold_into_summary(
        &mut self,
        limits: SummaryLimits<'_>,
        mut summary: Option<ContextSummary>,
        dropped: &[Message],
    ) -> Result<(Option<ContextSummary>, usize)> {
        let mut reached = 0;
        for chunk in chunks(dropped, limits.max_tokens)
            .into_iter()
            .take(MAX_SUMMARY_CALLS)
        {
            let previous = summary.as_ref().map(|s| s.text.as_str());
            match self.summary_call(limits, previous, chunk).await {
                Ok(text) => {
                    let next = self.next_summary(summary.as_ref(), chunk, text);
                    self.keep_summary(&next, chunk.len()).await;
                    summary = Some(next);
                    reached += chunk.len();
                }
                Err(Error::Aborted) => return Err(Error::Aborted),
                Err(error) => {
                    self.summary_failed(summary.as_ref(), &error);
                    break;
                }
            }
        }
        Ok((summary, reached))
    }

    /// The summary after `chunk` was folded into `previous` as `text`.
    fn next_summary(
        &self,
        previous: Option<&ContextSummary>,
        chunk: &[Message],
        text: String,
    ) -> ContextSummary {
        let last = chunk.last().map_or(0, |m| m.seq);
        ContextSummary {
            conversation_id: self.scope.conversation_id.clone(),
            text,
            through_seq: last,
            summarized_messages: previous.map_or(0, |s| s.summarized_messages) + chunk.len() as u32,
            updated_at: self.agent.clock.now_ms(),
        }
    }

    /// Stores a new summary and reports it. A failed write is only a
    /// warning: the summary still serves this request.
    async fn keep_summary(&self, summary: &ContextSummary, folded: usize) {
        if let Err(error) = self.agent.store.put_context_summary(summary).await {
            self.scope.emit(|| EventKind::Warning {
                code: "contextSummaryNotStored".into(),
                message: format!(
                    "the conversation's summary could not be stored ({error}): it will be made again"
                ),
            });
        }
        self.scope.emit(|| EventKind::ContextCompressed {
            summarized_messages: folded as u32,
            through_seq: Some(summary.through_seq),
            summary_tokens: estimate_tokens(&summary.text),
            fallback: None,
        });
    }

    /// Reports a summary call that failed: older history is dropped instead.
    fn summary_failed(&self, summary: Option<&ContextSummary>, error: &Error) {
        let reason = format!("{}: {error}", error.name());
        self.scope.emit(|| EventKind::Warning {
            code: "contextSummaryFailed".into(),
            message: format!(
                "older history could not be summarised and is left out of this request ({reason})"
            ),
        });
        self.scope.emit(|| EventKind::ContextCompressed {
            summarized_messages: 0,
            through_seq: summary.map(|s| s.through_seq),
            summary_tokens: summary.map_or(0, |s| estimate_tokens(&s.text)),
            fallback: Some(reason.clone()),
        });
    }

    /// Makes one summary call: the new summary's text, or why there is none.
    async fn summary_call(
        &mut self,
        limits: SummaryLimits<'_>,
        previous: Option<&str>,
        messages: &[Message],
    ) -> Result<String> {
        let request = self
            .agent
            .summary_request(previous, messages, limits.max_tokens)?;
        self.check_budgets(&request, limits.period)?;
        let response = match self.agent.model.stream(&request, &self.scope.cancel).await {
            Ok(parts) => accumulate(parts).await,
            Err(error) => Err(error),
        };
        let carried = || Carried {
            purpose: EgressPurpose::Summary,
            book_id: limits.book_id,
            messages,
        };
        let response = match response {
            Ok(response) => response,
            Err(error) => {
                self.count_failed_call(&request, carried(), &error).await;
                return Err(error);
            }
        };
        self.count_answered_call((&request, &response), carried()).await;
        let text = response.text.trim();
        if text.is_empty() {
            return Err(Error::Protocol {
                message: "the model's summary was empty".into(),
            });
        }
        Ok(text.to_owned())
    }
}
