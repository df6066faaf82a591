//! The context-per-step benchmark, shared by the native run (memory store)
//! and the browser run (IndexedDB): what building a model call's history
//! costs in a conversation of 50 and of 5,000 stored messages, read as a
//! bounded window and, for comparison, as the full read it replaced.
#![allow(dead_code)]

use lectern::agent::{history_window, read_window, ContextStrategy};
use lectern::domain::{Conversation, Message, Role, ToolCall};
use lectern::storage::Store;

/// The conversation sizes compared.
pub const SIZES: [usize; 2] = [50, 5_000];

/// Fills conversation `id` with `count` messages: questions, answers and
/// tool calls with their results, a few hundred characters each.
pub async fn fill(store: &dyn Store, id: &str, count: usize) {
    store
        .create_conversation(&Conversation {
            id: id.into(),
            title: id.into(),
            created_at: 0.0,
            book_id: None,
            working_state: None,
        })
        .await
        .expect("create");
    let text = "The man who was Thursday walked along the embankment, thinking of Sunday. ".repeat(4);
    let mut batch = Vec::new();
    for i in 0..count {
        let mut message = match i % 5 {
            0 | 3 => Message::new(format!("{id}-m{i}"), id, Role::User, text.clone(), 0.0),
            1 => {
                let mut ask = Message::new(format!("{id}-m{i}"), id, Role::Assistant, "", 0.0);
                ask.tool_calls = vec![ToolCall {
                    id: format!("call{i}"),
                    name: "search_book".into(),
                    arguments: r#"{"query":"Sunday"}"#.into(),
                }];
                ask
            }
            2 => Message::new(format!("{id}-m{i}"), id, Role::ToolResult, text.clone(), 0.0),
            _ => Message::new(format!("{id}-m{i}"), id, Role::Assistant, text.clone(), 0.0),
        };
        if message.role == Role::ToolResult {
            message.tool_call_id = Some(format!("call{}", i - 1));
        }
        batch.push(message);
        if batch.len() == 500 {
            store
                .append_messages(std::mem::take(&mut batch))
                .await
                .expect("append");
        }
    }
    store.append_messages(batch).await.expect("append");
}

/// Median of `runs` timings of `step`, in milliseconds.
async fn median_ms<F, Fut>(runs: usize, now: &dyn Fn() -> f64, mut step: F) -> f64
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = usize>,
{
    let mut timings = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = now();
        assert!(step().await > 0);
        timings.push(now() - start);
    }
    timings.sort_by(f64::total_cmp);
    timings[runs / 2]
}

/// Report lines: per conversation size, the bounded window read and the full
/// read + window of the default context (`fullHistory`, 50 messages) and of a
/// token budget; and a figure line (`env`: `native` or `chromium`) for the
/// default context's bounded read at each size.
pub async fn run(store: &dyn Store, now: &dyn Fn() -> f64, runs: usize, env: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let strategies = [
        (
            "fullHistory 50",
            ContextStrategy::FullHistory { max_messages: 50 },
        ),
        (
            "tokenBudget 8,000",
            ContextStrategy::TokenBudget { max_tokens: 8_000 },
        ),
    ];
    for size in SIZES {
        let id = format!("bench-{size}");
        fill(store, &id, size).await;
        for (name, strategy) in strategies {
            let bounded = median_ms(runs, now, || async {
                read_window(store, &id, strategy, 100)
                    .await
                    .expect("window")
                    .len()
            })
            .await;
            let full = median_ms(runs, now, || async {
                let all = store.messages(&id).await.expect("messages");
                history_window(&all, strategy, 100).len()
            })
            .await;
            let window = read_window(store, &id, strategy, 100)
                .await
                .expect("window")
                .len();
            lines.push(format!(
                "  context per step, {size:>5} messages, {name}: bounded read {bounded:.3} ms \
                 ({window} messages), full read {full:.3} ms"
            ));
            if matches!(strategy, ContextStrategy::FullHistory { .. }) {
                lines.push(super::figures::figure(&format!("context_{size}"), env, bounded));
            }
        }
    }
    lines
}
