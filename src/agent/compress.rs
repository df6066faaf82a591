//! The `summarize` context strategy: history that no longer fits the token
//! budget is summarised by the model rather than dropped. The summary is
//! stored, so it is computed once and then only extended with what newly
//! falls out of the window; it goes to the model in the system message, ahead
//! of the kept messages. A summary that cannot be made never fails the turn:
//! the older history is dropped instead, with a `warning`.

use super::budget::PeriodStart;
use super::context::{history_window, read_back, unit_starts, ContextStrategy};
use super::turn_scope::TurnScope;
use super::{Agent, TurnState};
use crate::domain::{estimate_tokens, ContextSummary, Message};
use crate::error::{Error, Result};
use crate::events::EventKind;
use crate::storage::Store;

/// The heading the summary goes under in the system message.
pub const SUMMARY_HEADING: &str = "## Summary of the earlier conversation";
/// Summary calls one request may make (a long history switched to
/// `summarize` is caught up over the next turns, oldest part first).
const MAX_SUMMARY_CALLS: usize = 4;
/// The first page of the backward read of unsummarised messages; later pages double.
const FIRST_PAGE: usize = 64;

/// What summaries are made within: the strategy's limits, the budgets'
/// starting point, and the conversation's book (for the egress ledger).
#[derive(Clone, Copy)]
pub(super) struct SummaryLimits<'a> {
    /// `context.maxTokens`.
    pub max_tokens: usize,
    /// `context.keepRecent`.
    pub keep_recent: usize,
    /// Where the conversation's `budgetPeriod` stood when the turn began.
    pub period: Option<&'a PeriodStart>,
    /// The conversation's book, if any.
    pub book_id: Option<&'a str>,
}

/// The history a request sends under `summarize`.
pub(super) struct SummarizedHistory {
    /// The summary of what came before `messages`, if there is one.
    pub summary: Option<String>,
    /// The kept messages, oldest first.
    pub messages: Vec<Message>,
}

/// Tokens kept for the summary when history must be compressed: a quarter of
/// the budget, at most 1,024. It is also the summary call's `max_tokens`.
pub fn summary_room(max_tokens: usize) -> usize {
    (max_tokens / 4).clamp(16, 1_024)
}

/// What a summary costs in the system message.
pub fn summary_tokens(text: &str) -> usize {
    estimate_tokens(SUMMARY_HEADING) + estimate_tokens(text) + 2
}

/// The system message with the summary appended under [`SUMMARY_HEADING`].
pub fn with_summary(system: String, summary: Option<&str>) -> String {
    match summary {
        Some(text) => format!("{system}\n\n{SUMMARY_HEADING}\n\n{text}"),
        None => system,
    }
}

/// Where the newest `keep_recent` messages begin, moved back to the start of
/// their unit; never past the last unit, so the latest message always stays.
fn keep_recent_start(history: &[Message], keep_recent: usize) -> usize {
    let bound = history.len().saturating_sub(keep_recent);
    unit_starts(history)
        .into_iter()
        .take_while(|&start| start <= bound)
        .last()
        .unwrap_or(0)
}

/// The messages after `through_seq` (all of them when `None`), read newest
/// first in growing pages until the boundary is reached.
async fn messages_after(
    store: &dyn Store,
    conversation_id: &str,
    through_seq: Option<u32>,
) -> Result<Vec<Message>> {
    let after = |m: &Message| through_seq.is_none_or(|seq| m.seq > seq);
    read_back(store, conversation_id, FIRST_PAGE, |tail, complete| {
        let reached = tail.first().is_some_and(|m| !after(m));
        (complete || reached).then(|| tail.iter().position(after).unwrap_or(tail.len()))
    })
    .await
}

/// Splits `dropped` at unit starts into runs of about `max_tokens` each
/// (a unit larger than that is a run of its own).
fn chunks(dropped: &[Message], max_tokens: usize) -> Vec<&[Message]> {
    let mut starts = unit_starts(dropped);
    starts.push(dropped.len());
    let mut runs = Vec::new();
    let (mut from, mut used) = (0, 0);
    for pair in starts.windows(2) {
        let cost: usize = dropped[pair[0]..pair[1]]
            .iter()
            .map(super::context::message_tokens)
            .sum();
        if used > 0 && used + cost > max_tokens {
            runs.push(&dropped[from..pair[0]]);
            (from, used) = (pair[0], 0);
        }
        used += cost;
    }
    if from < dropped.len() {
        runs.push(&dropped[from..]);
    }
    runs
}

impl Agent {
    /// The history for the next request under `summarize`: the stored summary
    /// and the messages after it, if they fit `max_tokens` next to
    /// `fixed_tokens` (system message and tools); otherwise everything older
    /// than the newest `keep_recent` messages (and than what fits) is first
    /// folded into the summary.
    pub(super) async fn summarized_history(
        &self,
        scope: &TurnScope<'_>,
        state: &mut TurnState,
        fixed_tokens: usize,
        limits: SummaryLimits<'_>,
    ) -> Result<SummarizedHistory> {
        let SummaryLimits {
            max_tokens,
            keep_recent,
            ..
        } = limits;
        let stored = self.store.context_summary(scope.conversation_id).await?;
        let through = stored.as_ref().map(|s| s.through_seq);
        let live = messages_after(&*self.store, scope.conversation_id, through).await?;
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
        let (summary, reached) = self
            .fold_into_summary(scope, state, limits, stored, &live[..cut])
            .await?;
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
        &self,
        scope: &TurnScope<'_>,
        state: &mut TurnState,
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
            match self.summary_call(scope, state, limits, previous, chunk).await {
                Ok(text) => {
                    let next = self.next_summary(scope.conversation_id, summary.as_ref(), chunk, text);
                    self.keep_summary(scope, &next, chunk.len()).await;
                    summary = Some(next);
                    reached += chunk.len();
                }
                Err(Error::Aborted) => return Err(Error::Aborted),
                Err(error) => {
                    self.summary_failed(scope, summary.as_ref(), &error);
                    break;
                }
            }
        }
        Ok((summary, reached))
    }

    /// The summary after `chunk` was folded into `previous` as `text`.
    fn next_summary(
        &self,
        conversation_id: &str,
        previous: Option<&ContextSummary>,
        chunk: &[Message],
        text: String,
    ) -> ContextSummary {
        let last = chunk.last().map_or(0, |m| m.seq);
        ContextSummary {
            conversation_id: conversation_id.to_owned(),
            text,
            through_seq: last,
            summarized_messages: previous.map_or(0, |s| s.summarized_messages) + chunk.len() as u32,
            updated_at: self.clock.now_ms(),
        }
    }

    /// Stores a new summary and reports it. A failed write is only a
    /// warning: the summary still serves this request.
    async fn keep_summary(&self, scope: &TurnScope<'_>, summary: &ContextSummary, folded: usize) {
        if let Err(error) = self.store.put_context_summary(summary).await {
            scope.emit(|| EventKind::Warning {
                code: "contextSummaryNotStored".into(),
                message: format!(
                    "the conversation's summary could not be stored ({error}): it will be made again"
                ),
            });
        }
        scope.emit(|| EventKind::ContextCompressed {
            summarized_messages: folded as u32,
            through_seq: Some(summary.through_seq),
            summary_tokens: estimate_tokens(&summary.text),
            fallback: None,
        });
    }

    /// Reports a summary call that failed: older history is dropped instead.
    fn summary_failed(&self, scope: &TurnScope<'_>, summary: Option<&ContextSummary>, error: &Error) {
        let reason = format!("{}: {error}", error.name());
        scope.emit(|| EventKind::Warning {
            code: "contextSummaryFailed".into(),
            message: format!(
                "older history could not be summarised and is left out of this request ({reason})"
            ),
        });
        scope.emit(|| EventKind::ContextCompressed {
            summarized_messages: 0,
            through_seq: summary.map(|s| s.through_seq),
            summary_tokens: summary.map_or(0, |s| estimate_tokens(&s.text)),
            fallback: Some(reason.clone()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Role, ToolCall};

    fn msg(seq: u32, role: Role, words: usize) -> Message {
        let mut m = Message::new(String::new(), "c", role, "word ".repeat(words), 0.0);
        m.seq = seq;
        if role == Role::Assistant && words == 0 {
            m.tool_calls = vec![ToolCall {
                id: "1".into(),
                name: "t".into(),
                arguments: "{}".into(),
            }];
        }
        m
    }

    #[test]
    fn keep_recent_rounds_out_to_whole_units() {
        let history = [
            msg(1, Role::User, 1),
            msg(2, Role::Assistant, 0),
            msg(3, Role::ToolResult, 1),
            msg(4, Role::ToolResult, 1),
            msg(5, Role::Assistant, 1),
            msg(6, Role::User, 1),
        ];
        assert_eq!(keep_recent_start(&history, 2), 4);
        // Three would start inside the call's unit: the whole unit is kept.
        assert_eq!(keep_recent_start(&history, 3), 1);
        assert_eq!(
            keep_recent_start(&history, 0),
            5,
            "the latest message always stays"
        );
        assert_eq!(keep_recent_start(&history, 99), 0);
    }

    #[test]
    fn chunks_keep_units_whole_and_cover_everything() {
        let history = [
            msg(1, Role::User, 50),
            msg(2, Role::Assistant, 0),
            msg(3, Role::ToolResult, 50),
            msg(4, Role::Assistant, 50),
            msg(5, Role::User, 500),
        ];
        let runs = chunks(&history, 100);
        let seqs: Vec<Vec<u32>> = runs.iter().map(|r| r.iter().map(|m| m.seq).collect()).collect();
        assert_eq!(seqs, [vec![1], vec![2, 3], vec![4], vec![5]]);
        assert_eq!(chunks(&history, 10_000).len(), 1);
    }

    #[test]
    fn the_summary_goes_under_its_heading() {
        assert_eq!(with_summary("Be kind.".into(), None), "Be kind.");
        let system = with_summary("Be kind.".into(), Some("They met."));
        assert_eq!(system, format!("Be kind.\n\n{SUMMARY_HEADING}\n\nThey met."));
        assert!(summary_tokens("They met.") > estimate_tokens("They met."));
        assert_eq!(summary_room(100_000), 1_024);
        assert_eq!(summary_room(2_000), 500);
    }
}
