//! `exportConversation` / `importConversation`, natively: round trips in both
//! formats (tool calls, a paused turn that stays resolvable, usage), an
//! imported conversation going on with `send`, and every validation fault
//! refused with its path and nothing stored.

use crate::support::book_agent;

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{Agent, AgentConfig, ExportFormat, SendOptions, TurnStatus};
use lectern::approval::{ApprovalConfig, ApprovalDecision, ApprovalPolicy, DecisionKind, ToolPolicy};
use lectern::domain::{NewConversation, Role};
use lectern::error::Error;
use lectern::events::EventSink;
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::provider::Model;
use lectern::storage::{MemoryStore, Store};
use lectern::time::ManualClock;
use lectern::tool::{FnTool, ToolResult};
use serde_json::{json, Value};

struct World {
    store: Rc<MemoryStore>,
    model: Rc<ScriptedModel>,
    clock: Rc<ManualClock>,
    agent: Agent,
    /// Every run of `write_file`: its arguments.
    writes: Rc<RefCell<Vec<Value>>>,
}

/// `read_file` runs, `write_file` asks.
fn world(turns: Vec<ScriptedTurn>) -> World {
    let store = Rc::new(MemoryStore::new());
    let model = Rc::new(ScriptedModel::new(turns));
    let clock = Rc::new(ManualClock::new(1_700_000_000_000.0));
    let mut approvals = ApprovalConfig {
        ttl_ms: 60_000,
        ..ApprovalConfig::default()
    };
    approvals
        .tools
        .insert("write_file".into(), ToolPolicy::Fixed(ApprovalPolicy::Ask));
    let config = AgentConfig {
        approvals,
        ..AgentConfig::default()
    };
    let dyn_model: Rc<dyn Model> = model.clone();
    let agent = Agent::new(store.clone(), dyn_model, clock.clone(), config);
    let writes = Rc::new(RefCell::new(Vec::new()));
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
        agent.register_tool(Rc::new(tool)).unwrap();
    }
    World {
        store,
        model,
        clock,
        agent,
        writes,
    }
}

impl World {
    fn conversation(&self) -> String {
        block_on(self.agent.create_conversation(NewConversation::default()))
            .unwrap()
            .id
    }

    fn send(&self, id: &str, text: &str) -> TurnStatus {
        let sent = self.clock.drive(
            self.agent
                .send(id, text, &SendOptions::default(), &EventSink::none()),
        );
        sent.unwrap().status
    }

    fn export(&self, id: &str, format: ExportFormat) -> Value {
        let export = self.clock.drive(self.agent.export_conversation(id, format));
        serde_json::to_value(export.unwrap()).unwrap()
    }

    fn import(&self, data: Value) -> Result<String, Error> {
        self.clock
            .drive(self.agent.import_conversation(data))
            .map(|c| c.id)
    }

    /// Everything the store holds of every conversation (ids included).
    fn snapshot(&self) -> Value {
        let mut all = Vec::new();
        for conversation in block_on(self.store.conversations()).unwrap() {
            let id = conversation.id.clone();
            all.push(json!({
                "conversation": conversation,
                "messages": block_on(self.store.messages(&id)).unwrap(),
                "toolCalls": block_on(self.store.tool_calls(&id)).unwrap(),
                "pending": block_on(self.store.pending_turns(Some(&id))).unwrap(),
                "usage": block_on(self.store.usage_totals(&id)).unwrap(),
                "grants": block_on(self.store.grants(&id)).unwrap(),
            }));
        }
        Value::Array(all)
    }
}

fn write(path: &str) -> ScriptedTurn {
    ScriptedTurn::tools(&[("write_file", &format!(r#"{{"path":"{path}"}}"#))]).with_usage(50, 5)
}

/// A conversation with a finished tool step (`read_file`), usage, and a turn
/// paused on `write_file`.
fn paused_world() -> (World, String) {
    let world = world(vec![
        ScriptedTurn::tools(&[("read_file", r#"{"path":"a"}"#)]).with_usage(100, 10),
        ScriptedTurn::text("It says hi.").with_usage(120, 12),
        write("b"),
        ScriptedTurn::text("Wrote b."),
        ScriptedTurn::text("You're welcome."),
    ]);
    let id = world.conversation();
    assert_eq!(world.send(&id, "read a"), TurnStatus::Completed);
    assert_eq!(world.send(&id, "write b"), TurnStatus::AwaitingApproval);
    (world, id)
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
    let (world, id) = paused_world();
    let bundle = world.export(&id, ExportFormat::Lectern);
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

    let copy = world.import(bundle.clone()).unwrap();
    assert_ne!(copy, id);
    let exported = world.export(&copy, ExportFormat::Lectern);
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
    assert_eq!(*world.writes.borrow(), [json!({"path": "b"})]);
    let original = block_on(world.agent.pending_approvals(Some(&id))).unwrap();
    assert_eq!(original.len(), 1, "the original turn still waits");

    // And the conversation goes on with `send`, its imported history sent to the model.
    assert_eq!(world.send(&copy, "thanks"), TurnStatus::Completed);
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
    let (world, id) = paused_world();
    let messages = world.export(&id, ExportFormat::OpenAi);
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
    let copy = world.import(messages.clone()).unwrap();
    assert_eq!(world.export(&copy, ExportFormat::OpenAi), messages);
    let titled = json!({ "format": "openai", "messages": messages, "title": "From elsewhere" });
    let titled = world.import(titled).unwrap();
    let conversation = block_on(world.store.conversation(&titled)).unwrap().unwrap();
    assert_eq!(conversation.title, "From elsewhere");
    assert_eq!(world.export(&titled, ExportFormat::OpenAi), messages);
    let missing = world
        .clock
        .drive(world.agent.export_conversation("nope", ExportFormat::OpenAi));
    assert_eq!(missing.unwrap_err().name(), "NotFoundError");
}

#[test]
fn openai_text_parts_are_joined_and_the_imported_conversation_goes_on() {
    let world = world(vec![ScriptedTurn::text("Bonjour !")]);
    let data = json!([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "héllo"}, {"type": "text", "text": "wörld 😀"}], "name": "ann"},
        {"role": "assistant", "content": [{"type": "text", "text": "Hi!"}], "refusal": null}
    ]);
    let id = world.import(data).unwrap();
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
    assert_eq!(world.send(&id, "and now?"), TurnStatus::Completed);
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
fn assert_refused(world: &World, cases: Vec<(&str, Value)>) {
    let before = world.snapshot();
    for (path, data) in cases {
        match world.import(data) {
            Err(Error::Import { path: found, message }) => assert_eq!(found, path, "{message}"),
            other => panic!("{path}: expected an ImportError, got {other:?}"),
        }
        assert_eq!(world.snapshot(), before, "{path}: nothing stored");
    }
}

#[test]
fn every_fault_of_a_lectern_bundle_is_refused_with_its_path_and_nothing_stored() {
    let (world, id) = paused_world();
    let good = world.export(&id, ExportFormat::Lectern);
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
    world.import(good).unwrap();
}

#[test]
fn every_fault_of_openai_messages_is_refused_with_its_path_and_nothing_stored() {
    let (world, _) = paused_world();
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
    let books = book_agent::book_agent(AgentConfig::default(), book_agent::thursday_pages(), 1, vec![]);
    let new = NewConversation {
        title: Some("About Thursday".into()),
        book_id: Some(books.book_id.clone()),
    };
    let id = block_on(books.agent.create_conversation(new)).unwrap().id;
    let bundle = block_on(books.agent.export_conversation(&id, ExportFormat::Lectern)).unwrap();
    let bundle = serde_json::to_value(bundle).unwrap();
    let copy = block_on(books.agent.import_conversation(bundle.clone())).unwrap();
    assert_eq!(copy.book_id.as_deref(), Some(books.book_id.as_str()));
    let elsewhere = changed(&bundle, |b| b["conversation"]["bookId"] = json!("no-such-book"));
    let refused = block_on(books.agent.import_conversation(elsewhere)).unwrap_err();
    assert!(
        matches!(&refused, Error::Import { path, .. } if path == "conversation.bookId"),
        "{refused:?}"
    );
    assert_eq!(block_on(books.store.conversations()).unwrap().len(), 2);
    assert!(books.model.requests().is_empty(), "an import calls no model");
}
