//! What each request carries, through the JS API in headless Chromium: the
//! answer's `max_tokens` from `send` (and `send`'s `maxContextTokens` checked), the persona and the model profile in
//! both wire formats, `modelProfile.contextLength`'s `warning` event, a
//! book conversation's reading rules under a custom persona prompt, the
//! `summarize` strategy's stored summary across a reopen of IndexedDB, and the
//! egress ledger of a tool step and of a failed call.

use crate::support::web;

use serde_json::{json, Value};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web::{
    conversation, js, json as to_json, open_with, openai_provider, reject, resolve, unique, MockSession,
};

/// Sends `text` with `options` (JSON) and returns the resolved value.
async fn send_with(opened: &web::Opened, id: &str, text: &str, options: Value) -> Value {
    let options = js(options).unchecked_into();
    to_json(&resolve(opened.lectern.send(id.into(), text.into(), Some(options))).await)
}

/// Sends `text` with `options` (JSON) and returns the name of the error it rejects with.
async fn send_refused(opened: &web::Opened, id: &str, text: &str, options: Value) -> String {
    let options = js(options).unchecked_into();
    String::from(
        reject(opened.lectern.send(id.into(), text.into(), Some(options)))
            .await
            .name(),
    )
}

#[wasm_bindgen_test]
async fn max_output_tokens_reaches_both_wire_formats_in_order_of_precedence() {
    let session = MockSession::new();
    session
        .script(json!([{ "text": "a" }, { "text": "b" }, { "text": "c" }]))
        .await;
    let opened = open_with(json!({
        "provider": openai_provider(&session, json!({ "maxTokens": 900 })),
        "modelProfile": { "maxOutputTokens": 300 }
    }))
    .await;
    let id = conversation(&opened).await;
    send_with(&opened, &id, "one", json!({ "maxOutputTokens": 120 })).await;
    send_with(&opened, &id, "two", json!({})).await;
    let zero = send_refused(&opened, &id, "three", json!({ "maxOutputTokens": 0 })).await;
    assert_eq!(zero, "ConfigError");
    let bodies: Vec<Value> = session
        .requests()
        .await
        .into_iter()
        .map(|r| r["body"].clone())
        .collect();
    assert_eq!(bodies.len(), 2, "the refused send called no model");
    assert_eq!(
        (bodies[0]["max_tokens"].clone(), bodies[1]["max_tokens"].clone()),
        (json!(120), json!(300))
    );

    let anthropic = MockSession::new();
    anthropic.script(json!([{ "text": "a" }, { "text": "b" }])).await;
    let provider =
        json!({ "kind": "anthropic", "baseUrl": anthropic.base_url(), "model": "claude", "apiKey": "k" });
    let opened =
        open_with(json!({ "provider": provider.clone(), "persona": { "maxOutputTokens": 64 } })).await;
    let id = conversation(&opened).await;
    send_with(&opened, &id, "one", json!({})).await;
    let plain = open_with(json!({ "provider": provider })).await;
    let id = conversation(&plain).await;
    send_with(&plain, &id, "two", json!({})).await;
    let bodies: Vec<Value> = anthropic
        .requests()
        .await
        .into_iter()
        .map(|r| r["body"].clone())
        .collect();
    assert_eq!(
        (bodies[0]["max_tokens"].clone(), bodies[1]["max_tokens"].clone()),
        (json!(64), json!(4096))
    );
}

#[wasm_bindgen_test]
async fn a_sends_max_context_tokens_is_checked_and_taken() {
    let session = MockSession::new();
    session.script(json!([{ "text": "a" }])).await;
    let opened = open_with(json!({ "provider": openai_provider(&session, json!({})) })).await;
    let id = conversation(&opened).await;
    let zero = send_refused(&opened, &id, "one", json!({ "maxContextTokens": 0 })).await;
    assert_eq!(zero, "ConfigError");
    let sent = send_with(&opened, &id, "two", json!({ "maxContextTokens": 200 })).await;
    assert_eq!(sent["text"], "a");
    assert_eq!(
        session.requests().await.len(),
        1,
        "the refused send called no model"
    );
}

#[wasm_bindgen_test]
async fn a_request_past_the_context_length_is_sent_whole_with_a_warning_event() {
    let session = MockSession::new();
    session
        .script(json!([{ "text": "first" }, { "text": "second" }]))
        .await;
    let opened = open_with(json!({
        "provider": openai_provider(&session, json!({})),
        "modelProfile": { "contextLength": 600, "maxOutputTokens": 100 }
    }))
    .await;
    let id = conversation(&opened).await;
    let long = "word ".repeat(600);
    send_with(&opened, &id, &long, json!({})).await;
    send_with(&opened, &id, "and now?", json!({})).await;
    let requests = session.requests().await;
    let first = requests[0]["body"]["messages"].as_array().unwrap().len();
    assert_eq!(first, 2, "system + the long message, sent although too long");
    let second: Vec<&str> = requests[1]["body"]["messages"].as_array().unwrap()[1..]
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(second, ["first", "and now?"], "the long message no longer fits");
    let warnings = opened.events_of("warning");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0]["code"], "contextOverflow");
    assert!(warnings[0]["message"]
        .as_str()
        .unwrap()
        .contains("contextLength is 600"));
}

#[wasm_bindgen_test]
async fn a_custom_persona_prompt_cannot_drop_the_reading_rules() {
    let session = MockSession::new();
    session.script(json!([{ "text": "Arr." }])).await;
    let opened = open_with(json!({
        "provider": openai_provider(&session, json!({})),
        "persona": { "systemPrompt": "You are a pirate." },
        "embedder": { "kind": "hashed" }
    }))
    .await;
    let report = to_json(&opened.lectern.validate_config().unwrap());
    assert!(
        report["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("{{book_context}}")),
        "{report}"
    );
    let book = js(
        json!({ "title": "Thursday", "pages": ["Syme meets Gregory.", "The council.", "Sunday unmasked."] }),
    );
    let book = to_json(&resolve(opened.lectern.add_book(book.unchecked_into(), None)).await);
    let book_id = book["id"].as_str().unwrap().to_owned();
    resolve(opened.lectern.set_current_page(book_id.clone().into(), 1.into())).await;
    let conv = js(json!({ "bookId": book_id }));
    let conv = to_json(&resolve(opened.lectern.create_conversation(Some(conv.unchecked_into()))).await);
    send_with(&opened, conv["id"].as_str().unwrap(), "Who is Sunday?", json!({})).await;
    let system = session.requests().await[0]["body"]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(system.starts_with("You are a pirate."), "{system}");
    assert!(system.contains("## Reading rules"), "{system}");
    assert!(system.contains("is on page 1 of 3"), "{system}");
}

#[wasm_bindgen_test]
async fn older_history_is_summarised_once_and_the_summary_survives_a_reopen() {
    let session = MockSession::new();
    session
        .script(json!([
            { "text": "one" },
            { "text": "two" },
            { "text": "S1: they spoke of words." },
            { "text": "three" },
            { "text": "four" }
        ]))
        .await;
    let options = json!({
        "dbName": unique("summarize"),
        "provider": openai_provider(&session, json!({})),
        "persona": { "systemPrompt": "Be brief." },
        "context": { "strategy": "summarize", "maxTokens": 300, "keepRecent": 2 }
    });
    let opened = open_with(options.clone()).await;
    let id = conversation(&opened).await;
    // About 104 tokens each: the third one takes history past 300.
    let long = |n: usize| format!("q{n} {}", "word ".repeat(100));
    for n in 1..=3 {
        send_with(&opened, &id, &long(n), json!({})).await;
    }
    let compressed = opened.events_of("contextCompressed");
    assert_eq!(compressed.len(), 1, "{compressed:?}");
    assert_eq!(
        compressed[0]["summarizedMessages"], 3,
        "q1, one, q2: all but the newest two"
    );
    resolve(opened.lectern.close()).await;

    let opened = open_with(options).await;
    send_with(&opened, &id, &long(4), json!({})).await;
    let requests = session.requests().await;
    assert_eq!(requests.len(), 5, "one summary call, none after the reopen");
    let summary_call = &requests[2]["body"];
    assert!(summary_call.get("tools").is_none(), "{summary_call}");
    let input = summary_call["messages"][1]["content"].as_str().unwrap();
    assert!(input.starts_with("Summary so far:\n(none yet)"), "{input}");
    assert!(
        input.contains("Reader: q1 ") && input.contains("Assistant: one") && input.contains("Reader: q2 ")
    );
    assert!(
        !input.contains("q3"),
        "the newest messages are kept, not summarised"
    );
    let last = requests[4]["body"]["messages"].as_array().unwrap();
    let system = last[0]["content"].as_str().unwrap();
    assert_eq!(
        system,
        "Be brief.\n\n## Summary of the earlier conversation\n\nS1: they spoke of words."
    );
    let kept: Vec<&str> = last[1..]
        .iter()
        .map(|m| &m["content"].as_str().unwrap()[..2])
        .collect();
    assert_eq!(kept, ["tw", "q3", "th", "q4"]);
    resolve(opened.lectern.close()).await;
}

#[wasm_bindgen_test]
async fn the_egress_ledger_names_the_host_the_counts_and_the_tool_results_sent() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "c1", "name": "lookup", "arguments": {} }], "usage": { "inputTokens": 120, "outputTokens": 9 } },
            { "text": "Found.", "usage": { "inputTokens": 150, "outputTokens": 3 } },
            { "fault": { "status": 500 } }
        ]))
        .await;
    let opened = open_with(json!({
        "provider": openai_provider(&session, json!({ "maxRetries": 0 }))
    }))
    .await;
    let lookup = web::tool(
        "lookup",
        json!({ "type": "object" }),
        "return 'the answer';",
        json!({}),
    );
    web::register(&opened, lookup);
    let id = conversation(&opened).await;
    let reply = send_with(&opened, &id, "look it up", json!({})).await;
    let egress = reply["egress"].as_array().unwrap();
    assert_eq!(egress.len(), 2, "{reply}");
    for (entry, (step, input, output)) in egress.iter().zip([(1, 120, 9), (2, 150, 3)]) {
        assert_eq!(
            (
                &entry["step"],
                &entry["purpose"],
                &entry["provider"],
                &entry["host"],
                &entry["model"]
            ),
            (
                &json!(step),
                &json!("answer"),
                &json!("openai"),
                &json!("127.0.0.1"),
                &json!("gpt-4o-mini")
            )
        );
        assert_eq!(
            (&entry["inputTokens"], &entry["outputTokens"]),
            (&json!(input), &json!(output))
        );
        assert_eq!(entry["tools"], json!(["lookup"]));
    }
    assert_eq!(egress[0]["toolResults"], json!([]));
    assert_eq!(
        egress[1]["toolResults"],
        json!([{ "callId": "c1", "toolName": "lookup", "chars": 10 }])
    );
    // A failed call still left the device: it is on the error, estimated.
    let error = reject(opened.lectern.send(id.clone().into(), "again".into(), None)).await;
    let fields = to_json(&error);
    assert_eq!(fields["egress"].as_array().unwrap().len(), 1, "{fields}");
    assert_eq!(fields["egress"][0]["estimated"], true);
}
