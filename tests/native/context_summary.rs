//! `context: { strategy: 'summarize' }`: history past the budget is folded
//! into a stored summary by the model (once, then extended), sent in the
//! system message ahead of the kept messages; call/result units are never
//! split; a failed summary falls back to truncation and never fails the turn.

use lectern::domain::SortedMap;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use futures::StreamExt;
use lectern::agent::prompts::PromptLibrary;
use lectern::agent::{validate_config, AgentConfig, ContextStrategy};
use lectern::domain::{estimate_tokens, EgressEntry, EgressPurpose, Role, Usage};
use lectern::error::{Error, Result};
use lectern::events::EventKind;
use lectern::provider::{FinishReason, Model, ModelRequest, PartStream, ProviderConfig, StreamPart};
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::{MemoryStore, Store};
use lectern::tool::{FnTool, ToolRegistry, ToolResult};
use serde_json::json;

use crate::support::harness::{Builder, TestAgent};

/// How every summary request's system message begins (the shipped prompt).
const SUMMARY_PROMPT_START: &str = "You keep the running summary";

/// A model that answers summary requests with `SUMMARY <n>` (or a queued
/// error) and other requests with a long answer; with `tool_first`, a user
/// message is answered with a `lookup` call first.
#[derive(Default)]
struct SummaryModel {
    requests: RefCell<Vec<ModelRequest>>,
    summary_errors: RefCell<VecDeque<Error>>,
    summaries: RefCell<usize>,
    tool_first: bool,
}

impl SummaryModel {
    fn is_summary(request: &ModelRequest) -> bool {
        request.tools.is_empty()
            && request.messages.len() == 1
            && request.messages[0].content.starts_with("Summary so far:")
    }

    fn summary_requests(&self) -> Vec<ModelRequest> {
        self.requests
            .borrow()
            .iter()
            .filter(|r| Self::is_summary(r))
            .cloned()
            .collect()
    }

    fn answer_requests(&self) -> Vec<ModelRequest> {
        self.requests
            .borrow()
            .iter()
            .filter(|r| !Self::is_summary(r))
            .cloned()
            .collect()
    }

    fn reply(&self, request: &ModelRequest) -> Result<Vec<StreamPart>> {
        let usage = |input, output| {
            StreamPart::Usage(Usage {
                input_tokens: input,
                output_tokens: output,
                cached_input_tokens: 0,
                estimated: false,
            })
        };
        if Self::is_summary(request) {
            if let Some(error) = self.summary_errors.borrow_mut().pop_front() {
                return Err(error);
            }
            *self.summaries.borrow_mut() += 1;
            let text = format!("SUMMARY {}", self.summaries.borrow());
            return Ok(vec![
                StreamPart::TextDelta(text),
                StreamPart::Finish(FinishReason::Stop),
                usage(100, 7),
            ]);
        }
        let last = request.messages.last().map(|m| m.role);
        if self.tool_first && last == Some(Role::User) {
            return Ok(vec![
                StreamPart::ToolCallStart {
                    index: 0,
                    id: format!("call_{}", self.requests.borrow().len()),
                    name: "lookup".into(),
                },
                StreamPart::ToolCallDelta {
                    index: 0,
                    arguments: "{}".into(),
                },
                StreamPart::ToolCallEnd { index: 0 },
                StreamPart::Finish(FinishReason::ToolCalls),
                usage(50, 5),
            ]);
        }
        let text = format!("answer {} {}", self.requests.borrow().len(), "word ".repeat(60));
        Ok(vec![
            StreamPart::TextDelta(text),
            StreamPart::Finish(FinishReason::Stop),
            usage(50, 5),
        ])
    }
}

impl Model for SummaryModel {
    fn stream(
        &self,
        request: &ModelRequest,
        _cancel: &CancelToken,
    ) -> LocalBoxFuture<'_, Result<PartStream>> {
        self.requests.borrow_mut().push(request.clone());
        let reply = self.reply(request);
        Box::pin(async move {
            let parts = reply?;
            Ok(futures::stream::iter(parts.into_iter().map(Ok)).boxed_local() as PartStream)
        })
    }

    fn model_name(&self) -> &str {
        "summary-model"
    }
}

/// An agent over a [`SummaryModel`].
type Harness = TestAgent<MemoryStore, SummaryModel>;

const BUDGET: usize = 700;

fn config(max_tokens: usize, keep_recent: usize) -> AgentConfig {
    AgentConfig {
        context: ContextStrategy::Summarize {
            max_tokens,
            keep_recent,
        },
        ..AgentConfig::default()
    }
}

/// An agent with `config` over `model`, whose `lookup` tool answers "found it".
fn harness(config: AgentConfig, model: SummaryModel) -> Harness {
    let lookup = FnTool::new(
        "lookup",
        "Looks something up.",
        json!({ "type": "object", "properties": {} }),
        |_, _| Box::pin(async { Ok(json!("found it")) }) as LocalBoxFuture<'static, ToolResult>,
    );
    Builder::over(Rc::new(model))
        .config(config)
        .clock(ManualClock::new(1.0e12))
        .tool(lookup)
        .build()
}

/// Sends `turns` messages of 60 words each; the egress entries of their results.
fn talk(h: &Harness, turns: usize) -> Vec<EgressEntry> {
    let mut egress = Vec::new();
    for n in 0..turns {
        let text = format!("question {n} {}", "word ".repeat(60));
        egress.extend(h.send(&text).unwrap().egress);
    }
    egress
}

/// Each `contextCompressed` event: (summarised messages, through seq, fallback).
fn compressed(h: &Harness) -> Vec<(u32, Option<u32>, Option<String>)> {
    h.events()
        .iter()
        .filter_map(|e| match e {
            EventKind::ContextCompressed {
                summarized_messages,
                through_seq,
                fallback,
                ..
            } => Some((*summarized_messages, *through_seq, fallback.clone())),
            _ => None,
        })
        .collect()
}

/// Estimated tokens of a request, as the budget counts them.
fn request_tokens(request: &ModelRequest) -> usize {
    let messages: usize = request
        .messages
        .iter()
        .map(|m| {
            4 + estimate_tokens(&m.content)
                + m.tool_calls
                    .iter()
                    .map(|c| estimate_tokens(&c.arguments) + estimate_tokens(&c.name) + 4)
                    .sum::<usize>()
        })
        .sum();
    estimate_tokens(request.system.as_deref().unwrap_or_default()) + messages
}

#[test]
fn history_past_the_budget_is_summarised_once_then_extended() {
    let h = harness(config(BUDGET, 2), SummaryModel::default());
    talk(&h, 12);
    let summaries = h.model.summary_requests();
    let answers = h.model.answer_requests();
    eprintln!(
        "summary calls: {}; kept messages per request: {:?}",
        summaries.len(),
        answers.iter().map(|r| r.messages.len()).collect::<Vec<_>>()
    );
    assert_eq!(answers.len(), 12);
    assert!(
        (2..6).contains(&summaries.len()),
        "a summary is made when history overflows, not every turn: {} calls in 12 turns",
        summaries.len()
    );
    // The first call summarises the oldest messages; each later one extends the previous summary.
    assert!(summaries[0].messages[0].content.contains("Reader: question 0 "));
    assert!(summaries[0].messages[0]
        .content
        .contains("Summary so far:\n(none yet)"));
    for (n, request) in summaries.iter().enumerate().skip(1) {
        let input = &request.messages[0].content;
        assert!(
            input.contains(&format!("Summary so far:\nSUMMARY {n}\n")),
            "{input}"
        );
        assert!(
            !input.contains("question 0 "),
            "an extension sends only what is new"
        );
    }
    // Every answer request fits the budget; once there is a summary it leads the kept messages.
    for request in &answers {
        assert!(
            request_tokens(request) <= BUDGET,
            "{} tokens",
            request_tokens(request)
        );
    }
    let last = answers.last().unwrap();
    let system = last.system.as_deref().unwrap();
    let heading = "## Summary of the earlier conversation";
    assert!(
        system.ends_with(&format!("{heading}\n\nSUMMARY {}", summaries.len())),
        "{system}"
    );
    assert_eq!(system.matches(heading).count(), 1);
    // What is stored covers exactly the messages before the kept ones.
    let stored = block_on(h.store.context_summary(&h.conversation))
        .unwrap()
        .unwrap();
    assert_eq!(stored.text, format!("SUMMARY {}", summaries.len()));
    let first_kept = &last.messages[0];
    let all = block_on(h.store.messages(&h.conversation)).unwrap();
    let kept_at = all.iter().position(|m| m.id == first_kept.id).unwrap();
    assert_eq!(stored.through_seq, all[kept_at - 1].seq);
    assert_eq!(stored.summarized_messages as usize, kept_at);
    assert!(last.messages.len() >= 2, "keepRecent messages stay verbatim");
    // One contextCompressed event per summary call, none a fallback.
    let compressed = compressed(&h);
    assert_eq!(compressed.len(), summaries.len());
    assert!(compressed
        .iter()
        .all(|(n, through, fallback)| *n > 0 && through.is_some() && fallback.is_none()));
}

#[test]
fn the_stored_summary_is_reused_by_a_new_agent() {
    let h = harness(config(BUDGET, 2), SummaryModel::default());
    talk(&h, 8);
    let made = h.model.summary_requests().len();
    assert!(made >= 1);
    // A reopened page: a new agent on the same store summarises nothing again.
    let reopened = Builder::over(Rc::new(SummaryModel::default()))
        .store(h.store.clone())
        .config(config(BUDGET, 2))
        .clock(ManualClock::new(2.0e12))
        .open(&h.conversation)
        .build();
    reopened.send("one more").unwrap();
    let request = reopened.model.answer_requests().pop().unwrap();
    assert!(
        reopened.model.summary_requests().is_empty(),
        "the stored summary is used as it is"
    );
    assert!(request.system.unwrap().ends_with(&format!("SUMMARY {made}")));
}

#[test]
fn a_call_is_never_split_from_its_results() {
    let model = SummaryModel {
        tool_first: true,
        ..SummaryModel::default()
    };
    let h = harness(config(BUDGET, 3), model);
    talk(&h, 10);
    assert!(!h.model.summary_requests().is_empty());
    for request in h.model.answer_requests() {
        let messages = &request.messages;
        assert_ne!(
            messages[0].role,
            Role::ToolResult,
            "the window never opens with a result"
        );
        for (i, m) in messages.iter().enumerate() {
            if m.role == Role::ToolResult {
                let call = m.tool_call_id.as_deref().unwrap();
                assert!(messages[..i]
                    .iter()
                    .any(|a| a.tool_calls.iter().any(|c| c.id == call)));
            }
        }
    }
    for request in h.model.summary_requests() {
        let input = &request.messages[0].content;
        let (_, added) = input.split_once("Messages to add:\n").unwrap();
        assert!(
            !added.starts_with("Tool result"),
            "a summary never starts inside a unit"
        );
        assert!(
            !added.trim_end().ends_with("with {}"),
            "nor ends between a call and its result"
        );
    }
    let stored = block_on(h.store.context_summary(&h.conversation))
        .unwrap()
        .unwrap();
    let all = block_on(h.store.messages(&h.conversation)).unwrap();
    let next = all.iter().find(|m| m.seq > stored.through_seq).unwrap();
    assert_ne!(next.role, Role::ToolResult);
}

#[test]
fn a_failed_summary_falls_back_to_truncation_without_failing_the_turn() {
    let model = SummaryModel::default();
    for _ in 0..2 {
        model.summary_errors.borrow_mut().push_back(Error::Api {
            status: 500,
            body: "boom".into(),
        });
    }
    let h = harness(config(BUDGET, 2), model);
    talk(&h, 8);
    let compressed = compressed(&h);
    let (failed, made): (Vec<_>, Vec<_>) = compressed.iter().partition(|(_, _, fallback)| fallback.is_some());
    assert_eq!(failed.len(), 2, "{compressed:?}");
    assert!(failed[0].2.as_deref().unwrap().starts_with("ApiError"));
    assert_eq!(failed[0].1, None, "nothing was summarised yet");
    assert!(h
        .events()
        .iter()
        .any(|e| matches!(e, EventKind::Warning { code, .. } if code == "contextSummaryFailed")));
    // Every turn answered, each within the budget; a later summary call worked and was stored.
    assert_eq!(h.model.answer_requests().len(), 8);
    assert!(h
        .model
        .answer_requests()
        .iter()
        .all(|r| request_tokens(r) <= BUDGET));
    assert!(!made.is_empty());
    assert!(block_on(h.store.context_summary(&h.conversation))
        .unwrap()
        .is_some());
}

#[test]
fn the_summary_prompt_can_be_replaced_and_its_call_is_counted() {
    let mut overrides = SortedMap::new();
    overrides.insert(
        "summarize_history".to_owned(),
        "Summarise in at most {{max_words}} words for {{reader}}.".to_owned(),
    );
    let mut config = config(BUDGET, 2);
    config.prompts = PromptLibrary::built_in().with_overrides(overrides);
    config.prompt_variables.insert("reader".into(), "Ann".into());
    let h = harness(config, SummaryModel::default());
    let egress = talk(&h, 8);
    let summaries = h.model.summary_requests();
    assert!(!summaries.is_empty());
    assert_eq!(
        summaries[0].system.as_deref(),
        Some("Summarise in at most 131 words for Ann.")
    );
    assert_eq!(summaries[0].max_tokens, Some(175), "a quarter of the budget");
    assert!(!summaries[0]
        .system
        .as_deref()
        .unwrap()
        .starts_with(SUMMARY_PROMPT_START));
    // Every call, summaries included, is in the conversation's usage.
    let totals = block_on(h.store.usage_totals(&h.conversation)).unwrap();
    let calls = h.model.requests.borrow().len() as u64;
    let summary_calls = summaries.len() as u64;
    assert_eq!(
        totals.input_tokens,
        50 * (calls - summary_calls) + 100 * summary_calls
    );
    assert_eq!(totals.turns, 8);
    // The egress ledger lists each summary call before its turn's first step.
    let listed: Vec<&EgressEntry> = egress
        .iter()
        .filter(|e| e.purpose == EgressPurpose::Summary)
        .collect();
    assert_eq!(listed.len(), summaries.len());
    assert!(listed
        .iter()
        .all(|e| (e.step, e.input_tokens, e.output_tokens) == (1, 100, 7) && e.tools.is_empty()));
    assert_eq!(egress.len() as u64, calls);
}

#[test]
fn an_abort_during_the_summary_call_fails_the_turn_as_aborted() {
    let h = harness(config(BUDGET, 2), SummaryModel::default());
    talk(&h, 4);
    let before = h.model.summary_requests().len();
    h.model.summary_errors.borrow_mut().push_back(Error::Aborted);
    let mut result = Ok(());
    for n in 0..4 {
        let text = format!("more {n} {}", "word ".repeat(60));
        let outcome = h.send(&text);
        if let Err(error) = outcome {
            result = Err(error.error);
            break;
        }
    }
    assert_eq!(result, Err(Error::Aborted), "an abort is not a summary failure");
    assert_eq!(h.model.summary_requests().len(), before + 1);
}

#[test]
fn validate_config_knows_the_summarize_strategy() {
    let provider: ProviderConfig =
        serde_json::from_value(json!({"kind": "openai", "baseUrl": "http://127.0.0.1:1/v1", "model": "m"}))
            .unwrap();
    let report = |config: AgentConfig| validate_config(&provider, &config, &ToolRegistry::new());
    let fine = report(config(8_000, 6));
    assert!(
        fine.valid && !fine.warnings.iter().any(|w| w.contains("summar")),
        "{fine:?}"
    );
    let small = report(config(300, 6));
    assert!(
        small.warnings.iter().any(|w| w.contains("small for 'summarize'")),
        "{small:?}"
    );
    let mut empty = config(8_000, 6);
    let overrides = SortedMap::from([("summarize_history".to_owned(), "  ".to_owned())]);
    empty.prompts = PromptLibrary::built_in().with_overrides(overrides);
    let empty = report(empty);
    assert!(!empty.valid);
    assert!(empty.errors[0].contains("summarize_history"), "{empty:?}");
}
