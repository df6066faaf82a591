//! A panic must not kill the page silently. With `panic = "abort"` a panic
//! traps the module; Lectern's panic hook reports it on `console.error`,
//! rejects the calls in flight, and from then on every entry — promise
//! methods, `stream`, the sync methods, `Lectern.open` — rejects or throws at
//! once with an `InternalError` instead of hanging.
//!
//! A panic breaks the whole module, so this file holds one test: it runs in a
//! wasm instance of its own. The panic comes from `panicForTest`, an entry
//! point compiled only with the `test-support` feature.
#![cfg(target_arch = "wasm32")]

mod support;

use js_sys::{Array, Function, Promise, Reflect};
use lectern::wasm::Lectern;
use serde_json::json;
use support::web::{js, sleep};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Calls `target[name](...args)` from JS, as a page would; a throw is `Err`.
fn call(target: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let method: Function = Reflect::get(target, &name.into())
        .expect("method")
        .dyn_into()
        .unwrap_or_else(|_| panic!("{name} is not a function"));
    method.apply(target, &args.iter().collect::<Array>())
}

/// What `promise` settles with within `ms`; a promise still pending then is a failure.
async fn settled_within(promise: Promise, ms: i32) -> Result<JsValue, JsValue> {
    let pending = JsValue::from_str("still pending");
    let timer = Promise::new(&mut |resolve, _| {
        let set_timeout: Function = Reflect::get(&js_sys::global(), &"setTimeout".into())
            .unwrap()
            .into();
        set_timeout
            .call3(&JsValue::NULL, &resolve, &ms.into(), &pending)
            .unwrap();
    });
    let outcome = JsFuture::from(Promise::race(&Array::of2(&promise, &timer))).await;
    assert!(
        outcome.as_ref().ok().and_then(JsValue::as_string).as_deref() != Some("still pending"),
        "the call did not settle within {ms} ms"
    );
    outcome
}

/// The `name` and `message` of an `InternalError` rejection or throw.
fn internal_error(outcome: Result<JsValue, JsValue>, what: &str) -> String {
    let error: js_sys::Error = match outcome {
        Ok(value) => panic!("{what} succeeded with {value:?}, expected an InternalError"),
        Err(error) => error
            .dyn_into()
            .unwrap_or_else(|e| panic!("{what}: not an Error: {e:?}")),
    };
    assert_eq!(
        String::from(error.name()),
        "InternalError",
        "{what}: {:?}",
        error.message()
    );
    let message = String::from(error.message());
    assert!(
        message.starts_with("Lectern stopped after an internal error: "),
        "{what}: {message}"
    );
    message
}

/// Records every `console.error` line in `globalThis.__lecternConsoleErrors`.
fn spy_on_console_error() {
    Function::new_no_args(
        "const original = console.error;
         globalThis.__lecternConsoleErrors = [];
         console.error = (...args) => {
           globalThis.__lecternConsoleErrors.push(args.map(String).join(' '));
           original.apply(console, args);
         };",
    )
    .call0(&JsValue::NULL)
    .unwrap();
}

fn console_errors() -> Vec<String> {
    let logged: Array = Reflect::get(&js_sys::global(), &"__lecternConsoleErrors".into())
        .unwrap()
        .into();
    logged.iter().filter_map(|v| v.as_string()).collect()
}

/// Options with a custom provider whose answer never comes: turns stay in flight.
fn never_answering() -> JsValue {
    let options = js(json!({ "provider": { "kind": "custom", "model": "stuck" } }));
    let provider = Reflect::get(&options, &"provider".into()).unwrap();
    let call = Function::new_no_args("return new Promise(() => {});");
    Reflect::set(&provider, &"call".into(), &call).unwrap();
    options
}

#[wasm_bindgen_test]
async fn a_panic_is_reported_and_every_later_call_rejects_with_internal_error() {
    spy_on_console_error();
    let lectern = JsValue::from(Lectern::connect(never_answering()).await.expect("opens"));
    let open: Function = Reflect::get(
        &Reflect::get(&lectern, &"constructor".into()).unwrap(),
        &"open".into(),
    )
    .unwrap()
    .into();
    let tool =
        js(json!({ "name": "noop", "description": "does nothing", "parameters": { "type": "object" } }));
    Reflect::set(&tool, &"execute".into(), &Function::new_no_args("return 1;")).unwrap();
    call(&lectern, "registerTool", std::slice::from_ref(&tool)).expect("registers");
    let conversation = JsFuture::from(Promise::from(call(&lectern, "createConversation", &[]).unwrap()))
        .await
        .unwrap();
    let id = Reflect::get(&conversation, &"id".into()).unwrap();

    // A turn and a stream in flight, both waiting for the model.
    let in_flight = Promise::from(call(&lectern, "send", &[id.clone(), "hello".into()]).unwrap());
    let stream = call(&lectern, "stream", &[id.clone(), "hello again".into()]).unwrap();
    let iterator = call(&stream, "next", &[]).map(Promise::from).unwrap();
    sleep(50).await;

    // The panic, inside a promise.
    let panicked = Promise::from(call(&lectern, "panicForTest", &[JsValue::TRUE]).unwrap());
    let message = internal_error(settled_within(panicked, 2000).await, "the panicking call");
    assert!(
        message.contains("panicForTest: a deliberate panic, in a promise"),
        "{message}"
    );
    assert!(message.contains("test_support.rs"), "names where: {message}");
    assert!(
        console_errors()
            .iter()
            .any(|line| line.contains("panicForTest: a deliberate panic")),
        "console.error got {:?}",
        console_errors()
    );

    // What was in flight is rejected, not left hanging.
    internal_error(settled_within(in_flight, 2000).await, "the send in flight");
    let first = settled_within(iterator, 2000).await.expect("next() resolves");
    let event = Reflect::get(&first, &"value".into()).unwrap();
    assert_eq!(
        Reflect::get(&event, &"type".into())
            .unwrap()
            .as_string()
            .as_deref(),
        Some("error")
    );
    assert_eq!(
        Reflect::get(&event, &"name".into())
            .unwrap()
            .as_string()
            .as_deref(),
        Some("InternalError")
    );
    let last = settled_within(call(&stream, "next", &[]).map(Promise::from).unwrap(), 2000)
        .await
        .unwrap();
    assert_eq!(Reflect::get(&last, &"done".into()).unwrap(), JsValue::TRUE);

    // Every later call, of this instance or a new one, is refused at once.
    for (name, args) in [
        ("conversations", vec![]),
        ("createConversation", vec![]),
        ("send", vec![id.clone(), "again".into()]),
        ("messages", vec![id.clone()]),
        (
            "resolveApprovals",
            vec![JsValue::from("turn"), Array::new().into()],
        ),
        ("pendingApprovals", vec![]),
        ("books", vec![]),
        ("close", vec![]),
    ] {
        let promise = Promise::from(call(&lectern, name, &args).expect("returns a promise"));
        internal_error(settled_within(promise, 0).await, name);
    }
    for (name, args) in [
        ("stream", vec![id.clone(), "again".into()]),
        ("registerTool", vec![tool]),
        ("unregisterTool", vec!["noop".into()]),
        ("toolNames", vec![]),
        ("clearToolCache", vec![]),
        ("validateConfig", vec![]),
        ("panicForTest", vec![JsValue::FALSE]),
        ("panicForTest", vec![JsValue::TRUE]),
    ] {
        internal_error(call(&lectern, name, &args), name);
    }
    let reopened = Promise::from(open.call1(&JsValue::NULL, &never_answering()).unwrap());
    internal_error(settled_within(reopened, 0).await, "Lectern.open");
}
