//! Events the agent reports to the host while a turn runs.
//!
//! Every event carries the conversation and turn it belongs to; the variant is
//! in `type`. Events are built only when someone listens ([`EventSink::emit_with`]).

use std::rc::Rc;

use serde::Serialize;

/// One event, as the host's `onEvent` callback receives it (and as
/// `recordEvents` stores it, as JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// The conversation the turn runs in.
    pub conversation_id: String,
    /// The turn that produced the event.
    pub turn_id: String,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What an [`Event`] reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum EventKind {
    /// A model call (step) begins.
    StepStart {
        /// 1 for the first model call of the turn, then 2, 3, ...
        step: u32,
    },
    /// A piece of the assistant's answer, in order.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// A piece of the model's reasoning ("thinking"), in order; sent only with `showThinking: true`.
    ReasoningDelta {
        /// The new reasoning text.
        text: String,
    },
    /// A piece of a tool call the model is writing.
    ToolCallDelta {
        /// Position of the call in this model response.
        index: usize,
        /// The call id, once known.
        #[serde(skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
        /// The tool's name, once known.
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_name: Option<String>,
        /// The next fragment of the arguments text.
        arguments_delta: String,
    },
    /// A tool is about to run (arguments redacted as configured).
    ToolInvocation {
        /// The tool's name.
        tool_name: String,
        /// The arguments as an object, the shape a pending call's have; `null` when
        /// the model's text is not a JSON object (the call then fails as invalid).
        arguments: Option<serde_json::Value>,
        /// The arguments exactly as the model sent them (JSON text).
        arguments_text: String,
        /// The provider's call id.
        call_id: String,
    },
    /// A tool finished, failed, or was refused.
    ToolResult {
        /// The tool's name.
        tool_name: String,
        /// The provider's call id.
        call_id: String,
        /// The result the model reads, if the tool succeeded.
        result: Option<String>,
        /// What went wrong, if it failed.
        error: Option<String>,
        /// How long it took.
        duration_ms: f64,
        /// Whether the result came from the cache.
        cached: bool,
        /// How many times the tool ran (more than 1 after retries, 0 if it did not run).
        attempts: u32,
        /// What the tool reports to the host besides its result (`search_book`: `{ query, resultCount, results }`).
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<serde_json::Value>,
    },
    /// Tokens used by one model call.
    TokenUsage {
        /// Prompt tokens.
        input_tokens: u64,
        /// Completion tokens.
        output_tokens: u64,
        /// Prompt tokens served from cache.
        cached_input_tokens: u64,
        /// Cost in US dollars, where the model's price is known.
        #[serde(skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
        /// The provider reported no usage: the counts are Lectern's estimate
        /// (`domain::estimate_tokens`).
        estimated: bool,
    },
    /// A model call (step) ended.
    StepFinish {
        /// Which step.
        step: u32,
        /// Why the model stopped: `stop`, `toolCalls`, `length`, `contentFilter` or the provider's word.
        finish_reason: String,
        /// How many tool calls it asked for.
        tool_calls: usize,
    },
    /// The turn paused: these calls wait for a person's decision (`resolveApprovals`).
    ApprovalRequested {
        /// The calls waiting.
        calls: Vec<crate::approval::PendingCall>,
        /// When the approval runs out (ms since the epoch).
        expires_at: f64,
    },
    /// The turn finished with this answer.
    Finish {
        /// The full answer text.
        text: String,
        /// The answer parsed as JSON, when `send` asked for a `responseSchema`.
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<serde_json::Value>,
        /// The book passages the answer was given, in book order.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        sources: Vec<crate::domain::Source>,
        /// The answer checked against its sources, when it has any.
        #[serde(skip_serializing_if = "Option::is_none")]
        source_check: Option<crate::domain::SourceCheck>,
        /// Set when the answer is quotes from the book, not a model's words.
        #[serde(skip_serializing_if = "Option::is_none")]
        quoted: Option<crate::domain::Quoted>,
    },
    /// A headless run ended and is stored (`runs()`): `proposed` ones wait
    /// for a person's review (`reviewRun`).
    #[serde(rename_all = "camelCase")]
    RunFinished {
        /// The run.
        run_id: String,
        /// How it ended.
        status: crate::domain::RunStatus,
    },
    /// A tool set the conversation's working state, now stored (or, from
    /// `setWorkingState`, the host did); with `remote: true`, an instance in
    /// another tab on the same database did.
    WorkingState {
        /// The state as stored (`null`: cleared).
        state: Option<serde_json::Value>,
    },
    /// Something the host should know that does not stop the turn.
    Warning {
        /// What kind: `contextOverflow` (the request is larger than
        /// `modelProfile.contextLength` even with only the latest message),
        /// `budgetUnpriced` (a cost limit the model has no price for),
        /// `contextSummaryFailed` (older history was dropped, not summarised).
        code: String,
        /// A human-readable description.
        message: String,
    },
    /// Older history was summarised for the `summarize` context strategy
    /// (one event a summary call), or could not be and was dropped instead.
    ContextCompressed {
        /// Messages this call summarised (0 when it failed).
        summarized_messages: u32,
        /// The `seq` of the last message the stored summary covers (absent when there is none).
        #[serde(skip_serializing_if = "Option::is_none")]
        through_seq: Option<u32>,
        /// The summary's estimated size in tokens.
        summary_tokens: usize,
        /// Why the summary could not be made, when the older history was
        /// dropped instead (the turn goes on).
        #[serde(skip_serializing_if = "Option::is_none")]
        fallback: Option<String>,
    },
    /// The turn failed.
    Error {
        /// The error's JS name, e.g. `RateLimitError`.
        name: String,
        /// A human-readable description.
        message: String,
    },
}

/// Where events go: nowhere, or to a host callback.
#[derive(Clone, Default)]
pub struct EventSink {
    listener: Option<Rc<dyn Fn(Event)>>,
}

impl EventSink {
    /// A sink that drops everything without building it.
    pub fn none() -> Self {
        EventSink { listener: None }
    }

    /// A sink that hands every event to `listener`.
    pub fn new(listener: impl Fn(Event) + 'static) -> Self {
        EventSink {
            listener: Some(Rc::new(listener)),
        }
    }

    /// Whether anyone listens.
    pub fn is_listening(&self) -> bool {
        self.listener.is_some()
    }

    /// Builds the event with `build` and delivers it, only if someone listens.
    pub fn emit_with(&self, build: impl FnOnce() -> Event) {
        if let Some(listener) = &self.listener {
            listener(build());
        }
    }
}

impl std::fmt::Debug for EventSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventSink")
            .field("listening", &self.is_listening())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn serialises_flat_with_a_type_tag() {
        let ev = Event {
            conversation_id: "c".into(),
            turn_id: "t".into(),
            kind: EventKind::TokenUsage {
                input_tokens: 3,
                output_tokens: 4,
                cached_input_tokens: 0,
                cost_usd: None,
                estimated: false,
            },
        };
        let json = serde_json::to_value(&ev).unwrap();
        assert_eq!(json["type"], "tokenUsage");
        assert_eq!(json["conversationId"], "c");
        assert_eq!(json["inputTokens"], 3);
        assert!(json.get("costUsd").is_none());
    }

    #[test]
    fn a_silent_sink_never_builds_events() {
        let built = Cell::new(false);
        EventSink::none().emit_with(|| {
            built.set(true);
            unreachable!()
        });
        assert!(!built.get());
    }
}
