//! Helpers for the browser tests: the mock server's URL, scripting it, and
//! unique names so tests never share a database or a mock session.
#![allow(dead_code)]

/// The MiniLM check in Chromium (`tests/web/minilm.rs`, `tests/web_bench.rs`).
pub mod minilm;
pub mod writer;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Function, Reflect};
use lectern::wasm::Lectern;
use serde_json::json;
use wasm_bindgen::prelude::Closure;

use gloo_net::http::Request;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The mock model server, started by `npm test` and baked in at compile time.
pub fn mock_url() -> &'static str {
    match option_env!("LECTERN_MOCK_URL") {
        Some(url) => url,
        None => panic!(
            "LECTERN_MOCK_URL is not set: run the browser tests with `npm test` \
             (or start tests/mock-server/server.mjs and export its MOCK_URL)"
        ),
    }
}

thread_local! {
    static COUNTER: Cell<u32> = const { Cell::new(0) };
}

/// A name no other test in this run uses.
pub fn unique(prefix: &str) -> String {
    let n = COUNTER.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    format!("{prefix}-{}-{n}", js_sys::Date::now() as u64)
}

/// A mock session: its own turn queue and request log.
pub struct MockSession {
    pub name: String,
}

impl MockSession {
    pub fn new() -> Self {
        MockSession {
            name: unique("session"),
        }
    }

    /// Base URL of the session's OpenAI-compatible API.
    pub fn base_url(&self) -> String {
        format!("{}/s/{}/v1", mock_url(), self.name)
    }

    /// Queues scripted turns.
    pub async fn script(&self, turns: Value) {
        let response = Request::post(&format!("{}/__mock/{}/script", mock_url(), self.name))
            .header("content-type", "application/json")
            .body(serde_json::json!({ "turns": turns }).to_string())
            .expect("script body")
            .send()
            .await
            .expect("mock server reachable");
        assert_eq!(response.status(), 200);
    }

    /// The contents of the `tool` messages in the `index`-th request (OpenAI format).
    pub async fn tool_results(&self, index: usize) -> Vec<Value> {
        self.requests().await[index]["body"]["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].clone())
            .collect()
    }

    /// Every request this session received.
    pub async fn requests(&self) -> Vec<Value> {
        let response = Request::get(&format!("{}/__mock/{}/requests", mock_url(), self.name))
            .send()
            .await
            .expect("mock server reachable");
        let text = response.text().await.expect("requests body");
        serde_json::from_str(&text).expect("requests JSON")
    }
}

/// Parses JSON into a JS value.
pub fn js(json: Value) -> JsValue {
    js_sys::JSON::parse(&json.to_string()).expect("valid JSON")
}

/// Converts a JS value to JSON for assertions.
pub fn json(value: &JsValue) -> Value {
    let text: String = js_sys::JSON::stringify(value).expect("stringify").into();
    serde_json::from_str(&text).expect("JSON")
}

/// Awaits a promise that must resolve.
pub async fn resolve(promise: js_sys::Promise) -> JsValue {
    match JsFuture::from(promise).await {
        Ok(value) => value,
        Err(error) => panic!("promise rejected: {}", describe(&error)),
    }
}

/// Awaits a promise that must reject, returning the rejection.
pub async fn reject(promise: js_sys::Promise) -> js_sys::Error {
    match JsFuture::from(promise).await {
        Ok(value) => panic!("promise resolved with {value:?}, expected a rejection"),
        Err(error) => {
            use wasm_bindgen::JsCast;
            error
                .dyn_into::<js_sys::Error>()
                .expect("rejections are real Error objects")
        }
    }
}

fn describe(value: &JsValue) -> String {
    use wasm_bindgen::JsCast;
    match value.dyn_ref::<js_sys::Error>() {
        Some(e) => format!("{}: {}", String::from(e.name()), String::from(e.message())),
        None => format!("{value:?}"),
    }
}

/// The body of `url` (a GET), if it answers 200.
pub async fn fetch_bytes(url: &str) -> Option<Vec<u8>> {
    let response = Request::get(url).send().await.ok()?;
    if response.status() != 200 {
        return None;
    }
    response.binary().await.ok()
}

/// Resolves after `ms` milliseconds.
pub async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let global = js_sys::global();
        let set_timeout: js_sys::Function = js_sys::Reflect::get(&global, &"setTimeout".into())
            .expect("setTimeout")
            .into();
        set_timeout
            .call2(&global, &resolve, &ms.into())
            .expect("setTimeout call");
    });
    JsFuture::from(promise).await.expect("timer");
}

/// Book `id` once its vectors are in: `addBook` resolves with a book searched
/// lexically, whose vectors are computed behind it (waits up to 60 s).
pub async fn embedded_book(lectern: &Lectern, id: &str) -> Value {
    for _ in 0..1200 {
        let books = json(&resolve(lectern.books()).await);
        let book = books
            .as_array()
            .and_then(|all| all.iter().find(|b| b["id"] == id).cloned());
        let book = book.unwrap_or_else(|| panic!("book {id} is gone"));
        if book["dimensions"].as_u64() > Some(0) {
            return book;
        }
        sleep(50).await;
    }
    panic!("book {id} got no vectors in 60 s")
}

/// A `Lectern` opened through the boundary, with the events it emitted.
pub struct Opened {
    pub lectern: Lectern,
    pub events: Rc<RefCell<Vec<Value>>>,
    _listener: Closure<dyn Fn(JsValue)>,
}

impl Opened {
    /// The events emitted so far whose `type` is `kind`.
    pub fn events_of(&self, kind: &str) -> Vec<Value> {
        self.events
            .borrow()
            .iter()
            .filter(|e| e["type"] == kind)
            .cloned()
            .collect()
    }
}

pub async fn open(db_name: Option<&str>, provider: Value) -> Opened {
    let options = match db_name {
        Some(name) => json!({ "dbName": name, "provider": provider }),
        None => json!({ "provider": provider }),
    };
    open_with(options).await
}

/// Opens a `Lectern` with these options plus an `onEvent` that records every event.
pub async fn open_with(options: Value) -> Opened {
    open_with_js(js(options)).await
}

/// Opens a `Lectern` with these JS options (which may hold functions) plus an
/// `onEvent` that records every event. Without `approvals`, the tests' tools
/// run unasked (`default: 'auto'`): the default policy has tests of its own.
pub async fn open_with_js(options: JsValue) -> Opened {
    let approvals = JsValue::from_str("approvals");
    if Reflect::get(&options, &approvals).is_ok_and(|a| a.is_undefined()) {
        Reflect::set(&options, &approvals, &js(json!({ "default": "auto" }))).unwrap();
    }
    let events = Rc::new(RefCell::new(Vec::new()));
    let sink = events.clone();
    let listener = Closure::<dyn Fn(JsValue)>::new(move |ev: JsValue| sink.borrow_mut().push(json(&ev)));
    js_sys::Reflect::set(&options, &"onEvent".into(), listener.as_ref()).unwrap();
    let lectern = match Lectern::connect(options).await {
        Ok(l) => l,
        Err(e) => panic!("open failed: {e:?}"),
    };
    Opened {
        lectern,
        events,
        _listener: listener,
    }
}

/// An OpenAI-compatible provider on the session, with `extra` fields.
pub fn openai_provider(session: &MockSession, extra: Value) -> Value {
    let mut provider =
        json!({ "kind": "openai", "baseUrl": session.base_url(), "model": "gpt-4o-mini", "apiKey": "k" });
    provider
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    provider
}

/// A tool spec whose `execute(args, ctx)` has `body` as its JS source.
pub fn tool(name: &str, parameters: Value, body: &str, extra: Value) -> JsValue {
    let mut spec =
        json!({ "name": name, "description": format!("the {name} tool"), "parameters": parameters });
    spec.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let spec = js(spec);
    let execute = Function::new_with_args("args, ctx", body);
    Reflect::set(&spec, &"execute".into(), &execute).unwrap();
    spec
}

/// Registers a tool spec on the instance.
pub fn register(opened: &Opened, spec: JsValue) {
    opened
        .lectern
        .register_tool(spec.unchecked_into())
        .expect("registers");
}

/// Creates a conversation and returns its id.
pub async fn conversation(opened: &Opened) -> String {
    json(&resolve(opened.lectern.create_conversation(None)).await)["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Sends a message; the result as JSON, or the rejection.
pub async fn send(opened: &Opened, id: &str, text: &str) -> Result<Value, js_sys::Error> {
    match wasm_bindgen_futures::JsFuture::from(opened.lectern.send(id.into(), text.into(), None)).await {
        Ok(value) => Ok(json(&value)),
        Err(error) => Err(error.dyn_into().unwrap()),
    }
}

/// `(role, content)` of each message in `messages()`' JSON, for comparing a conversation's record.
pub fn roles_and_contents(messages: &Value) -> Vec<(&str, &str)> {
    messages
        .as_array()
        .expect("messages() gives an array")
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect()
}
