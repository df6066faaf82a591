//! The `summarize` context strategy: history that no longer fits the token
//! budget is summarised by the model rather than dropped. The summary is
//! stored, so it is computed once and then only extended with what newly
//! falls out of the window; it goes to the model in the system message, ahead
//! of the kept messages. A summary that cannot be made never fails the turn:
//! the older history is dropped instead, with a `warning`.

use super::budget::PeriodStart;
use super::context::{read_back, unit_starts};
use crate::domain::{estimate_tokens, Message};
use crate::error::Result;
use crate::storage::Store;

/// The heading the summary goes under in the system message.
pub const SUMMARY_HEADING: &str = "## Summary of the earlier conversation";
/// Summary calls one request may make (a long history switched to
/// `summarize` is caught up over the next turns, oldest part first).
pub(super) const MAX_SUMMARY_CALLS: usize = 4;
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
pub(super) fn keep_recent_start(history: &[Message], keep_recent: usize) -> usize {
    let bound = history.len().saturating_sub(keep_recent);
    unit_starts(history)
        .into_iter()
        .take_while(|&start| start <= bound)
        .last()
        .unwrap_or(0)
}

/// The messages after `through_seq` (all of them when `None`), read newest
/// first in growing pages until the boundary is reached.
pub(super) async fn messages_after(
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
pub(super) fn chunks(dropped: &[Message], max_tokens: usize) -> Vec<&[Message]> {
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
