//! Choosing which stored messages the model sees, read from the store in
//! bounded pages from the newest message back.

use serde::{Deserialize, Deserializer};

pub use crate::domain::estimate_tokens;
use crate::domain::{Message, Role};
use crate::error::Result;
use crate::json::from_json::FromJson;
use crate::json::tagged::Tagged;
use crate::storage::Store;

/// Messages read past `maxMessages`, so one read usually reaches a unit boundary.
const SLACK: usize = 16;
/// The first page of a token-budget read; later pages double.
const FIRST_PAGE: usize = 64;

/// How much history goes to the model. Either way the newest messages are
/// kept, an assistant message that called tools is never split from its tool
/// results, and the latest message is always sent.
///
/// JS names it by `strategy`: `{ strategy: 'fullHistory', maxMessages }`,
/// `{ strategy: 'tokenBudget', maxTokens }` or
/// `{ strategy: 'summarize', maxTokens, keepRecent }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextStrategy {
    /// At most `max_messages` messages.
    FullHistory {
        /// The most messages sent.
        max_messages: usize,
    },
    /// As many of the newest messages as fit an estimated `max_tokens`
    /// (together with the system prompt).
    TokenBudget {
        /// The token budget.
        max_tokens: usize,
    },
    /// Like `TokenBudget`, but what no longer fits is summarised by the
    /// model instead of dropped (see `compress`): the summary is stored,
    /// extended as history grows, and sent in the system message.
    Summarize {
        /// The token budget (system message and summary included).
        max_tokens: usize,
        /// The newest messages never summarised (rounded out to whole units).
        keep_recent: usize,
    },
}

/// `keepRecent` when `{ strategy: 'summarize' }` does not say.
pub const DEFAULT_KEEP_RECENT: usize = 6;

/// The fields of `{ strategy: 'fullHistory' }`.
#[derive(FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FullHistoryFields {
    max_messages: usize,
}

/// The fields of `{ strategy: 'summarize' }`.
#[derive(FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SummarizeFields {
    max_tokens: usize,
    #[serde(default = "default_keep_recent")]
    keep_recent: usize,
}

fn default_keep_recent() -> usize {
    DEFAULT_KEEP_RECENT
}

/// The fields of `{ strategy: 'tokenBudget' }`.
#[derive(FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TokenBudgetFields {
    max_tokens: usize,
}

// Read by its own `Deserialize` (a tagged enum), inside records too.
crate::from_json_via_serde!(ContextStrategy);

impl<'de> Deserialize<'de> for ContextStrategy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let tagged = Tagged::read(deserializer, "strategy")?;
        match tagged.tag.as_str() {
            "fullHistory" => tagged
                .fields()
                .map(|f: FullHistoryFields| ContextStrategy::FullHistory {
                    max_messages: f.max_messages,
                }),
            "tokenBudget" => tagged
                .fields()
                .map(|f: TokenBudgetFields| ContextStrategy::TokenBudget {
                    max_tokens: f.max_tokens,
                }),
            "summarize" => tagged
                .fields()
                .map(|f: SummarizeFields| ContextStrategy::Summarize {
                    max_tokens: f.max_tokens,
                    keep_recent: f.keep_recent,
                }),
            _ => Err(tagged.unknown(&["fullHistory", "tokenBudget", "summarize"])),
        }
    }
}

impl ContextStrategy {
    /// The token budget this strategy keeps to, if it is one.
    pub fn max_tokens(self) -> Option<usize> {
        match self {
            ContextStrategy::FullHistory { .. } => None,
            ContextStrategy::TokenBudget { max_tokens } | ContextStrategy::Summarize { max_tokens, .. } => {
                Some(max_tokens)
            }
        }
    }
}

impl Default for ContextStrategy {
    fn default() -> Self {
        ContextStrategy::FullHistory { max_messages: 50 }
    }
}

pub(super) fn message_tokens(message: &Message) -> usize {
    4 + estimate_tokens(&message.content)
        + message
            .tool_calls
            .iter()
            .map(|c| estimate_tokens(&c.arguments) + estimate_tokens(&c.name) + 4)
            .sum::<usize>()
}

/// Start indexes of the units history can be cut into: a message, or an
/// assistant message together with the tool results that follow it.
pub(super) fn unit_starts(history: &[Message]) -> Vec<usize> {
    (0..history.len())
        .filter(|&i| history[i].role != Role::ToolResult || i == 0)
        .collect()
}

/// The newest part of `history` that `strategy` lets through, given the
/// system prompt's estimated size.
pub fn history_window(history: &[Message], strategy: ContextStrategy, system_tokens: usize) -> &[Message] {
    let starts = unit_starts(history);
    let mut keep_from = history.len();
    let mut used = initial_cost(strategy, system_tokens);
    for &start in starts.iter().rev() {
        let cost = unit_cost(&history[start..keep_from], strategy);
        let first = keep_from == history.len();
        if used + cost > limit_of(strategy) && !first {
            break;
        }
        used += cost;
        keep_from = start;
    }
    // Never open with tool results whose call was cut off.
    while keep_from < history.len() && history[keep_from].role == Role::ToolResult {
        keep_from += 1;
    }
    &history[keep_from..]
}

/// The window [`history_window`] gives on the whole history, read newest
/// first in growing pages until its start is known: a step costs the size of
/// the window, not of the conversation.
pub async fn read_window(
    store: &dyn Store,
    conversation_id: &str,
    strategy: ContextStrategy,
    system_tokens: usize,
) -> Result<Vec<Message>> {
    let page = match strategy {
        ContextStrategy::FullHistory { max_messages } => max_messages.saturating_add(SLACK),
        ContextStrategy::TokenBudget { .. } | ContextStrategy::Summarize { .. } => FIRST_PAGE,
    };
    read_back(store, conversation_id, page, |tail, complete| {
        window_start(tail, complete, strategy, system_tokens)
    })
    .await
}

/// Reads a conversation's newest messages in pages that double from
/// `first_page`, each older than the last, until `start(tail, complete)`
/// says where in them what is wanted begins (`complete`: the tail is the
/// whole history); returns the tail from there.
pub(super) async fn read_back(
    store: &dyn Store,
    conversation_id: &str,
    first_page: usize,
    start: impl Fn(&[Message], bool) -> Option<usize>,
) -> Result<Vec<Message>> {
    let mut page = first_page;
    let mut tail: Vec<Message> = Vec::new();
    loop {
        let before = tail.first().map(|m| m.seq);
        let mut older = store.recent_messages(conversation_id, before, page).await?;
        let complete = older.len() < page;
        older.append(&mut tail);
        tail = older;
        if let Some(start) = start(&tail, complete) {
            tail.drain(..start);
            return Ok(tail);
        }
        page = page.saturating_mul(2);
    }
}

/// Where the window starts in `tail`, the newest messages of a history
/// (all of it when `complete`), or `None` if older messages could still
/// belong to the window.
fn window_start(
    tail: &[Message],
    complete: bool,
    strategy: ContextStrategy,
    system_tokens: usize,
) -> Option<usize> {
    if complete {
        return Some(tail.len() - history_window(tail, strategy, system_tokens).len());
    }
    let mut keep_from = tail.len();
    let mut used = initial_cost(strategy, system_tokens);
    for &start in unit_starts(tail).iter().rev() {
        let cost = unit_cost(&tail[start..keep_from], strategy);
        if used + cost > limit_of(strategy) && keep_from != tail.len() {
            // This unit does not fit; the whole unit (it may begin before
            // `tail`) costs at least as much, so the window starts after it.
            return Some(keep_from);
        }
        if tail[start].role == Role::ToolResult {
            return None; // it fits, but its call is older than `tail`
        }
        used += cost;
        keep_from = start;
    }
    None
}

fn initial_cost(strategy: ContextStrategy, system_tokens: usize) -> usize {
    match strategy.max_tokens() {
        None => 0,
        Some(_) => system_tokens,
    }
}

fn unit_cost(unit: &[Message], strategy: ContextStrategy) -> usize {
    match strategy.max_tokens() {
        None => unit.len(),
        Some(_) => unit.iter().map(message_tokens).sum(),
    }
}

fn limit_of(strategy: ContextStrategy) -> usize {
    match strategy {
        ContextStrategy::FullHistory { max_messages } => max_messages,
        ContextStrategy::TokenBudget { max_tokens } | ContextStrategy::Summarize { max_tokens, .. } => {
            max_tokens
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ToolCall;

    fn msg(role: Role, content: &str) -> Message {
        Message::new(String::new(), "c", role, content, 0.0)
    }

    fn ask() -> Message {
        let mut m = msg(Role::Assistant, "");
        m.tool_calls = vec![ToolCall {
            id: "1".into(),
            name: "t".into(),
            arguments: "{}".into(),
        }];
        m
    }

    fn roles(window: &[Message]) -> Vec<Role> {
        window.iter().map(|m| m.role).collect()
    }

    #[test]
    fn keeps_the_newest_messages() {
        let history = [
            msg(Role::User, "a"),
            msg(Role::Assistant, "b"),
            msg(Role::User, "c"),
        ];
        let strategy = ContextStrategy::FullHistory { max_messages: 2 };
        assert_eq!(
            roles(history_window(&history, strategy, 0)),
            [Role::Assistant, Role::User]
        );
    }

    #[test]
    fn never_splits_a_tool_call_from_its_results() {
        let history = [
            msg(Role::User, "q"),
            ask(),
            msg(Role::ToolResult, "r1"),
            msg(Role::ToolResult, "r2"),
            msg(Role::Assistant, "answer"),
            msg(Role::User, "next"),
        ];
        // Five would cut between the call and its first result: the whole unit goes.
        let window = history_window(&history, ContextStrategy::FullHistory { max_messages: 4 }, 0);
        assert_eq!(roles(window), [Role::Assistant, Role::User]);
        let window = history_window(&history, ContextStrategy::FullHistory { max_messages: 5 }, 0);
        assert_eq!(
            roles(window),
            [
                Role::Assistant,
                Role::ToolResult,
                Role::ToolResult,
                Role::Assistant,
                Role::User
            ]
        );
    }

    #[test]
    fn token_budget_trims_oldest_first_and_counts_the_system_prompt() {
        let long = "word ".repeat(100); // 100 tokens
        let history = [
            msg(Role::User, &long),
            msg(Role::Assistant, &long),
            msg(Role::User, "short"),
        ];
        let all = history_window(&history, ContextStrategy::TokenBudget { max_tokens: 1000 }, 0);
        assert_eq!(all.len(), 3);
        let two = history_window(&history, ContextStrategy::TokenBudget { max_tokens: 150 }, 0);
        assert_eq!(two.len(), 2);
        let one = history_window(&history, ContextStrategy::TokenBudget { max_tokens: 150 }, 100);
        assert_eq!(one.len(), 1, "the system prompt uses the budget too");
        let over = history_window(&history, ContextStrategy::TokenBudget { max_tokens: 1 }, 500);
        assert_eq!(roles(over), [Role::User], "the latest message is always sent");
    }
}
