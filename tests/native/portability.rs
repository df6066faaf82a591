//! `exportConversation` / `importConversation`, natively: round trips in both
//! formats (tool calls, a paused turn that stays resolvable, usage), an
//! imported conversation going on with `send`, and every validation fault
//! refused with its path and nothing stored.

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{AgentConfig, ExportFormat, SendOptions, TurnStatus};
use lectern::approval::{ApprovalConfig, ApprovalDecision, ApprovalPolicy, DecisionKind};
use lectern::domain::{NewConversation, Role};
use lectern::error::Error;
use lectern::events::EventSink;
use lectern::provider::scripted::ScriptedTurn;
use lectern::storage::{Store, StoreArchive};
use lectern::tool::{FnTool, ToolResult};
use serde_json::{json, Value};

use crate::support::harness::approvals::{fixed_policies, with_approvals};
use crate::support::harness::{books, TestAgent};

/// The arguments of every `write_file` run.
type Writes = Rc<RefCell<Vec<Value>>>;

/// An agent (no conversation yet) whose `read_file` runs and `write_file`
/// asks; and the arguments of every `write_file` run.
fn file_agent(turns: Vec<ScriptedTurn>) -> (TestAgent, Writes) {
    let config = with_approvals(ApprovalConfig {
        ttl_ms: 60_000,
        ..fixed_policies(&[("write_file", ApprovalPolicy::Ask)])
    });
    let writes = Writes::default();
    let mut builder = TestAgent::builder(turns).config(config).without_conversation();
    for name in ["read_file", "write_file"] {
        let writes = writes.clone();
        let tool = FnTool::new(
            name,
            "A file tool",
            json!({"type": "object"}),
            move |args: Value, _| {
                if name == "write_file" {
                    writes.borrow_mut().push(args.clone());
                }
                Box::pin(async move { Ok(json!({ "ok": args["path"] })) })
                    as LocalBoxFuture<'static, ToolResult>
            },
        );
        builder = builder.tool(tool);
    }
    (builder.build(), writes)
}

/// A new conversation's id.
fn conversation(world: &TestAgent) -> String {
    world.create_conversation(NewConversation::default())
}

fn send(world: &TestAgent, id: &str, text: &str) -> TurnStatus {
    world.send_in(id, text, &SendOptions::default()).unwrap().status
}

fn export(world: &TestAgent, id: &str, format: ExportFormat) -> Value {
    let export = world.clock.drive(world.agent.export_conversation(id, format));
    serde_json::to_value(export.unwrap()).unwrap()
}

fn import(world: &TestAgent, data: Value) -> Result<String, Error> {
    world
        .clock
        .drive(world.agent.import_conversation(data))
        .map(|c| c.id)
}

/// Everything the store holds of every conversation (ids included).
fn snapshot(world: &TestAgent) -> Value {
    let mut all = Vec::new();
    for conversation in block_on(world.store.conversations()).unwrap() {
        let id = conversation.id.clone();
        all.push(json!({
            "conversation": conversation,
            "messages": block_on(world.store.messages(&id)).unwrap(),
            "toolCalls": block_on(world.store.tool_calls(&id)).unwrap(),
            "pending": block_on(world.store.pending_turns(Some(&id))).unwrap(),
            "usage": block_on(world.store.usage_totals(&id)).unwrap(),
            "grants": block_on(world.store.grants(&id)).unwrap(),
        }));
    }
    Value::Array(all)
}

fn write(path: &str) -> ScriptedTurn {
    ScriptedTurn::tools(&[("write_file", &format!(r#"{{"path":"{path}"}}"#))]).with_usage(50, 5)
}

/// A conversation with a finished tool step (`read_file`), usage, and a turn
/// paused on `write_file`.
fn paused_world() -> (TestAgent, String, Writes) {
    let (world, writes) = file_agent(vec![
        ScriptedTurn::tools(&[("read_file", r#"{"path":"a"}"#)]).with_usage(100, 10),
        ScriptedTurn::text("It says hi.").with_usage(120, 12),
        write("b"),
        ScriptedTurn::text("Wrote b."),
        ScriptedTurn::text("You're welcome."),
    ]);
    let id = conversation(&world);
    assert_eq!(send(&world, &id, "read a"), TurnStatus::Completed);
    assert_eq!(send(&world, &id, "write b"), TurnStatus::AwaitingApproval);
    (world, id, writes)
}

/// `bundle` with the ids an import replaces blanked: the conversation's,
/// the messages', and every `conversationId` and `turnId`.
fn without_ids(mut bundle: Value) -> Value {
    fn blank(value: &mut Value) {
        match value {
            Value::Object(object) => {
                for (key, value) in object.iter_mut() {
                    if key == "conversationId" || key == "turnId" {
                        *value = json!("-");
                    } else {
                        blank(value);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(blank),
            _ => {}
        }
    }
    bundle["conversation"]["id"] = json!("-");
    for message in bundle["messages"].as_array_mut().unwrap() {
        message["id"] = json!("-");
    }
    blank(&mut bundle);
    bundle
}

#[test]
fn a_lectern_bundle_round_trips_and_its_paused_turn_resolves_after_import() {
    let (world, id, writes) = paused_world();
    let bundle = export(&world, &id, ExportFormat::Lectern);
    assert_eq!(
        (&bundle["format"], &bundle["version"]),
        (&json!("lectern"), &json!(1))
    );
    assert_eq!(bundle["messages"].as_array().unwrap().len(), 5, "{bundle:#}");
    assert_eq!(bundle["toolCalls"][0]["name"], "read_file");
    assert_eq!(bundle["pendingTurns"][0]["calls"][0]["toolName"], "write_file");
    assert_eq!(
        (&bundle["usage"]["inputTokens"], &bundle["usage"]["turns"]),
        (&json!(270), &json!(2))
    );

    let copy = import(&world, bundle.clone()).unwrap();
    assert_ne!(copy, id);
    let exported = export(&world, &copy, ExportFormat::Lectern);
    assert_eq!(without_ids(exported.clone()), without_ids(bundle.clone()));
    let turn_id = exported["pendingTurns"][0]["turnId"].as_str().unwrap().to_owned();
    assert_ne!(turn_id, bundle["pendingTurns"][0]["turnId"].as_str().unwrap());

    // The imported paused turn resolves through the normal API; the original stays paused.
    let decision = ApprovalDecision {
        call_id: exported["pendingTurns"][0]["calls"][0]["callId"]
            .as_str()
            .unwrap()
            .into(),
        decision: DecisionKind::Approve,
        arguments: None,
        reason: None,
    };
    let options = SendOptions::default();
    let resolved = world
        .clock
        .drive(
            world
                .agent
                .resolve_approvals(&turn_id, &[decision], &options, &EventSink::none()),
        )
        .unwrap();
    assert_eq!(
        (resolved.status, resolved.text.as_str()),
        (TurnStatus::Completed, "Wrote b.")
    );
    assert_eq!(*writes.borrow(), [json!({"path": "b"})]);
    let original = block_on(world.agent.pending_approvals(Some(&id))).unwrap();
    assert_eq!(original.len(), 1, "the original turn still waits");

    // And the conversation goes on with `send`, its imported history sent to the model.
    assert_eq!(send(&world, &copy, "thanks"), TurnStatus::Completed);
    let request = world.model.requests().pop().unwrap();
    let texts: Vec<&str> = request.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts.first(), Some(&"read a"), "{texts:?}");
    assert_eq!(texts.last(), Some(&"thanks"));
    let records = block_on(world.agent.tool_calls(&copy)).unwrap();
    assert_eq!(records.len(), 2, "the imported record and the resolved call");
    assert!(records.iter().all(|r| r.conversation_id == copy));
}

#[test]
fn an_openai_export_is_the_providers_messages_array_and_round_trips() {
    let (world, id, _) = paused_world();
    let messages = export(&world, &id, ExportFormat::OpenAi);
    let call_id = messages[1]["tool_calls"][0]["id"].clone();
    assert_eq!(
        messages,
        json!([
            {"role": "user", "content": "read a"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}
            ]},
            {"role": "tool", "tool_call_id": call_id, "content": "{\"ok\":\"a\"}"},
            {"role": "assistant", "content": "It says hi."},
            {"role": "user", "content": "write b"}
        ])
    );
    let copy = import(&world, messages.clone()).unwrap();
    assert_eq!(export(&world, &copy, ExportFormat::OpenAi), messages);
    let titled = json!({ "format": "openai", "messages": messages, "title": "From elsewhere" });
    let titled = import(&world, titled).unwrap();
    let conversation = block_on(world.store.conversation(&titled)).unwrap().unwrap();
    assert_eq!(conversation.title, "From elsewhere");
    assert_eq!(export(&world, &titled, ExportFormat::OpenAi), messages);
    let missing = world
        .clock
        .drive(world.agent.export_conversation("nope", ExportFormat::OpenAi));
    assert_eq!(missing.unwrap_err().name(), "NotFoundError");
}

#[test]
fn openai_text_parts_are_joined_and_the_imported_conversation_goes_on() {
    let (world, _) = file_agent(vec![ScriptedTurn::text("Bonjour !")]);
    let data = json!([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "héllo"}, {"type": "text", "text": "wörld 😀"}], "name": "ann"},
        {"role": "assistant", "content": [{"type": "text", "text": "Hi!"}], "refusal": null}
    ]);
    let id = import(&world, data).unwrap();
    let messages = block_on(world.agent.messages(&id)).unwrap();
    let stored: Vec<(Role, &str, u32)> = messages
        .iter()
        .map(|m| (m.role, m.content.as_str(), m.seq))
        .collect();
    assert_eq!(
        stored,
        [
            (Role::System, "Be brief.", 0),
            (Role::User, "héllo\nwörld 😀", 1),
            (Role::Assistant, "Hi!", 2)
        ]
    );
    assert_eq!(send(&world, &id, "and now?"), TurnStatus::Completed);
    assert_eq!(block_on(world.agent.messages(&id)).unwrap().len(), 5);
    let sent = &world.model.requests()[0].messages;
    assert_eq!(sent[1].content, "héllo\nwörld 😀");
}

/// `bundle` with `change` made to it.
fn changed(bundle: &Value, change: impl FnOnce(&mut Value)) -> Value {
    let mut bundle = bundle.clone();
    change(&mut bundle);
    bundle
}

/// Each import is refused with `Import` at its path, and the store is as it was.
fn assert_refused(world: &TestAgent, cases: Vec<(&str, Value)>) {
    let before = snapshot(world);
    for (path, data) in cases {
        match import(world, data) {
            Err(Error::Import { path: found, message }) => assert_eq!(found, path, "{message}"),
            other => panic!("{path}: expected an ImportError, got {other:?}"),
        }
        assert_eq!(snapshot(world), before, "{path}: nothing stored");
    }
}

#[test]
fn every_fault_of_a_lectern_bundle_is_refused_with_its_path_and_nothing_stored() {
    let (world, id, _) = paused_world();
    let good = export(&world, &id, ExportFormat::Lectern);
    let too_long = "x".repeat(200_001);
    let many: Vec<Value> = vec![json!({}); 100_001];
    let cases = vec![
        ("", json!(42)),
        ("format", json!({ "version": 1 })),
        ("format", changed(&good, |b| b["format"] = json!("yaml"))),
        ("version", changed(&good, |b| b["version"] = json!(2))),
        ("extra", changed(&good, |b| b["extra"] = json!(true))),
        ("conversation", changed(&good, |b| b["conversation"] = json!(7))),
        (
            "conversation.title",
            changed(&good, |b| b["conversation"]["title"] = json!("t".repeat(501))),
        ),
        (
            "conversation.bookId",
            changed(&good, |b| b["conversation"]["bookId"] = json!("b1")),
        ),
        ("messages", changed(&good, |b| b["messages"] = json!(many))),
        (
            "messages[0]",
            changed(&good, |b| b["messages"][0]["role"] = json!("robot")),
        ),
        (
            "messages[1].seq",
            changed(&good, |b| b["messages"][1]["seq"] = json!(5)),
        ),
        (
            "messages[2].conversationId",
            changed(&good, |b| b["messages"][2]["conversationId"] = json!("other")),
        ),
        (
            "messages[0].content",
            changed(&good, |b| b["messages"][0]["content"] = json!(too_long)),
        ),
        (
            "messages[2].toolCallId",
            changed(&good, |b| b["messages"][2]["toolCallId"] = json!("call_x")),
        ),
        (
            "messages[1].toolCalls[0]",
            changed(&good, |b| b["messages"][2]["role"] = json!("user")),
        ),
        (
            "messages[0].toolCallId",
            changed(&good, |b| b["messages"][0]["toolCallId"] = json!("call_x")),
        ),
        (
            "messages[0].toolCalls",
            changed(&good, |b| {
                b["messages"][0]["toolCalls"] = b["messages"][1]["toolCalls"].clone()
            }),
        ),
        (
            "toolCalls[1].position",
            changed(&good, |b| {
                b["toolCalls"] = json!([b["toolCalls"][0], b["toolCalls"][0]])
            }),
        ),
        (
            "toolCalls[0].conversationId",
            changed(&good, |b| b["toolCalls"][0]["conversationId"] = json!("other")),
        ),
        (
            "pendingTurns[0].status",
            changed(&good, |b| b["pendingTurns"][0]["status"] = json!("resolved")),
        ),
        (
            "pendingTurns[0].calls[0].callId",
            changed(&good, |b| {
                b["pendingTurns"][0]["calls"][0]["callId"] = json!("call_x")
            }),
        ),
        (
            "pendingTurns[0].calls",
            changed(&good, |b| b["pendingTurns"][0]["calls"] = json!([])),
        ),
        (
            "pendingTurns[0].step.calls[1]",
            changed(&good, |b| {
                let extra = json!({ "id": "call_x", "name": "write_file", "arguments": "{}" });
                b["pendingTurns"][0]["step"]["calls"]
                    .as_array_mut()
                    .unwrap()
                    .push(extra);
            }),
        ),
        (
            "pendingTurns[1]",
            changed(&good, |b| {
                b["pendingTurns"] = json!([b["pendingTurns"][0], b["pendingTurns"][0]])
            }),
        ),
        (
            "usage.conversationId",
            changed(&good, |b| b["usage"]["conversationId"] = json!("other")),
        ),
        (
            "grants[1].toolName",
            changed(&good, |b| {
                let grant = json!({ "conversationId": id, "toolName": "write_file", "grantedAt": 1, "turnId": "t", "callId": "c" });
                b["grants"] = json!([grant, grant]);
            }),
        ),
    ];
    assert_refused(&world, cases);
    // The good bundle itself imports.
    import(&world, good).unwrap();
}

#[test]
fn every_fault_of_openai_messages_is_refused_with_its_path_and_nothing_stored() {
    let (world, _, _) = paused_world();
    let call =
        json!({"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}});
    let ask = json!({"role": "assistant", "content": null, "tool_calls": [call]});
    let user = json!({"role": "user", "content": "hi"});
    let answer = json!({"role": "tool", "tool_call_id": "call_1", "content": "ok"});
    let cases = vec![
        ("format", json!({ "format": 3, "messages": [] })),
        ("extra", json!({ "format": "openai", "messages": [], "extra": 1 })),
        ("title", json!({ "format": "openai", "messages": [], "title": 5 })),
        ("messages", json!({ "format": "openai" })),
        ("messages[0]", json!(["hi"])),
        ("messages[0].role", json!([{"role": "function", "content": "x"}])),
        ("messages[0].role", json!([{"content": "x"}])),
        ("messages[0].content", json!([{"role": "user", "content": null}])),
        (
            "messages[0].content[1].type",
            json!([{"role": "user", "content": [
                {"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}
            ]}]),
        ),
        (
            "messages[0].content[0].text",
            json!([{"role": "user", "content": [{"type": "text"}]}]),
        ),
        (
            "messages[2].tool_call_id",
            json!([user, ask, {"role": "tool", "content": "ok"}]),
        ),
        (
            "messages[2].tool_call_id",
            json!([user, ask, {"role": "tool", "tool_call_id": "call_2", "content": "ok"}]),
        ),
        ("messages[1].tool_calls[0]", json!([user, ask, user])),
        ("messages[1].tool_calls[0]", json!([user, ask])),
        (
            "messages[1].tool_calls[1].id",
            json!([user, {"role": "assistant", "tool_calls": [call, call]}, answer, answer]),
        ),
        (
            "messages[1].tool_calls[0].function.name",
            json!([user, {"role": "assistant", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"arguments": "{}"}}
        ]}, answer]),
        ),
        (
            "messages[1].tool_calls[0].type",
            json!([user, {"role": "assistant", "tool_calls": [
            {"id": "call_1", "type": "custom", "function": {"name": "f", "arguments": "{}"}}
        ]}, answer]),
        ),
        (
            "messages[0].tool_calls",
            json!([{"role": "user", "content": "x", "tool_calls": [call]}, answer]),
        ),
        (
            "messages[0].tool_call_id",
            json!([{"role": "user", "content": "x", "tool_call_id": "call_1"}]),
        ),
    ];
    assert_refused(&world, cases);
}

#[test]
fn a_book_conversation_imports_only_with_its_book_in_the_library() {
    let (builder, book_id) = books::book_agent(AgentConfig::default(), books::thursday_pages(), 1, vec![]);
    let books = builder.title("About Thursday").book(&book_id).build();
    let id = books.conversation.clone();
    let bundle = block_on(books.agent.export_conversation(&id, ExportFormat::Lectern)).unwrap();
    let bundle = serde_json::to_value(bundle).unwrap();
    let copy = block_on(books.agent.import_conversation(bundle.clone())).unwrap();
    assert_eq!(copy.book_id.as_deref(), Some(book_id.as_str()));
    let elsewhere = changed(&bundle, |b| b["conversation"]["bookId"] = json!("no-such-book"));
    let refused = block_on(books.agent.import_conversation(elsewhere)).unwrap_err();
    assert!(
        matches!(&refused, Error::Import { path, .. } if path == "conversation.bookId"),
        "{refused:?}"
    );
    assert_eq!(block_on(books.store.conversations()).unwrap().len(), 2);
    assert!(books.model.requests().is_empty(), "an import calls no model");
}
