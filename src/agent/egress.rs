//! The egress ledger: after each model request — answered, failed or a
//! summary — an entry of what it carried goes into the turn's state, and
//! from there into `SendResult.egress`, the failed turn's error, paused turns
//! and headless runs.

use super::sources::system_sources;
use crate::domain::{
    EgressEntry, EgressPurpose, Endpoint, Message, PassageRef, Role, Source, ToolRequest, ToolResultRef,
    TurnState, Usage,
};
use crate::provider::{host_of, Model, ModelRequest};
use crate::retrieval::reader::passages::passage_pages;
use crate::tool::builtin::SEARCH_BOOK;

/// Passages of `text` (as `format_passages` wrote them) from `book_id`.
fn passages_in(text: &str, book_id: &str, via: &str) -> Vec<PassageRef> {
    passage_pages(text)
        .into_iter()
        .map(|(start_page, end_page)| PassageRef {
            book_id: book_id.to_owned(),
            start_page,
            end_page,
            via: via.to_owned(),
        })
        .collect()
}

/// The ledger's reference to a passage of the system message.
fn passage_ref(source: &Source) -> PassageRef {
    PassageRef {
        book_id: source.book_id.clone(),
        start_page: source.start_page,
        end_page: source.end_page,
        via: source.via.name().to_owned(),
    }
}

/// The tool results in `messages`, and the passages of the `search_book` ones.
fn tool_results_in(messages: &[Message], book_id: Option<&str>) -> (Vec<ToolResultRef>, Vec<PassageRef>) {
    let mut results = Vec::new();
    let mut passages = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let Some(call_id) = message
            .tool_call_id
            .as_deref()
            .filter(|_| message.role == Role::ToolResult)
        else {
            continue;
        };
        let tool_name = messages[..i]
            .iter()
            .rev()
            .flat_map(|m| &m.tool_calls)
            .find(|c| c.id == call_id)
            .map(|c| c.name.clone())
            .unwrap_or_default();
        if let (SEARCH_BOOK, Some(book)) = (tool_name.as_str(), book_id) {
            passages.extend(passages_in(&message.content, book, SEARCH_BOOK));
        }
        results.push(ToolResultRef {
            call_id: call_id.to_owned(),
            tool_name,
            chars: message.content.chars().count(),
        });
    }
    (results, passages)
}

/// What one request carried, besides where it went and its usage.
pub(super) struct Carried<'a> {
    /// Why it was made.
    pub purpose: EgressPurpose,
    /// The conversation's book, if any.
    pub book_id: Option<&'a str>,
    /// The messages whose tool results it carried (a summary call: the summarised ones).
    pub messages: &'a [Message],
}

/// The ledger's entry of a request that was sent (whatever came of it) to
/// `model`, in the turn of `state`.
pub(super) fn egress_entry(
    state: &TurnState,
    request: &ModelRequest,
    carried: Carried<'_>,
    usage: &Usage,
    model: &dyn Model,
) -> EgressEntry {
    let (tool_results, mut passages) = tool_results_in(carried.messages, carried.book_id);
    // A step and its correction carry the turn's system message; a summary call does not.
    let system_inputs = carried.purpose != EgressPurpose::Summary;
    if let (true, Some(_), Some(book)) = (system_inputs, &state.passages, carried.book_id) {
        let system = system_sources(state, book);
        passages.splice(0..0, system.iter().map(passage_ref));
    }
    let mentions = if system_inputs {
        state.mentions.iter().map(|(m, _)| m.clone()).collect()
    } else {
        Vec::new()
    };
    EgressEntry {
        // A summary call comes before its step is counted.
        step: match carried.purpose {
            EgressPurpose::Summary => state.steps + 1,
            EgressPurpose::Answer | EgressPurpose::Correction | EgressPurpose::Tool => state.steps,
        },
        purpose: carried.purpose,
        endpoint: model.endpoint(),
        model: request.model_or(model.model_name()).to_owned(),
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        estimated: usage.estimated,
        system_chars: request.system.as_deref().map_or(0, |s| s.chars().count()),
        messages: request.messages.len(),
        tools: request.tools.iter().map(|t| t.name.clone()).collect(),
        passages,
        tool_results,
        mentions,
        tool_request: None,
    }
}

/// Adds an entry for each request built-in tools sent while the calls of
/// the turn's current step ran (those that got an HTTP answer). Such an
/// entry carries no model, tokens or messages: its `provider` is the
/// service, its `toolRequest` the tool, the call and the URL.
pub(super) fn record_tool_egress(state: &mut TurnState, requests: Vec<ToolRequest>) {
    for request in requests {
        state.egress.push(EgressEntry {
            step: state.steps,
            purpose: EgressPurpose::Tool,
            endpoint: Endpoint {
                provider: request.service.clone(),
                host: Some(host_of(&request.url)),
                local: false,
            },
            model: String::new(),
            input_tokens: 0,
            output_tokens: 0,
            estimated: false,
            system_chars: 0,
            messages: 0,
            tools: Vec::new(),
            passages: Vec::new(),
            tool_results: Vec::new(),
            mentions: Vec::new(),
            tool_request: Some(request),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ToolCall;

    fn message(role: Role, content: &str) -> Message {
        Message::new(String::new(), "c", role, content, 0.0)
    }

    #[test]
    fn tool_results_are_named_by_their_call_and_search_passages_listed() {
        let mut call = message(Role::Assistant, "");
        call.tool_calls = vec![
            ToolCall {
                id: "a".into(),
                name: SEARCH_BOOK.into(),
                arguments: "{}".into(),
            },
            ToolCall {
                id: "b".into(),
                name: "weather".into(),
                arguments: "{}".into(),
            },
        ];
        let mut search = message(Role::ToolResult, "[Pages 2-3]\nSyme.\n\n[Pages 7-7]\nGregory.");
        search.tool_call_id = Some("a".into());
        let mut weather = message(Role::ToolResult, "Rain");
        weather.tool_call_id = Some("b".into());
        let mut orphan = message(Role::ToolResult, "é");
        orphan.tool_call_id = Some("z".into());
        let history = [message(Role::User, "q"), call, search, weather, orphan];
        let (results, passages) = tool_results_in(&history, Some("book"));
        let names: Vec<(&str, &str, usize)> = results
            .iter()
            .map(|r| (r.call_id.as_str(), r.tool_name.as_str(), r.chars))
            .collect();
        assert_eq!(names, [("a", SEARCH_BOOK, 39), ("b", "weather", 4), ("z", "", 1)]);
        let pages: Vec<(u32, u32)> = passages.iter().map(|p| (p.start_page, p.end_page)).collect();
        assert_eq!(pages, [(2, 3), (7, 7)]);
        assert!(passages
            .iter()
            .all(|p| p.book_id == "book" && p.via == SEARCH_BOOK));
        assert!(
            tool_results_in(&history, None).1.is_empty(),
            "no book, no passages"
        );
    }
}
