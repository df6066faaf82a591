//! The fuzz targets' properties (`tests/fuzz_props`) on stable, a few thousand
//! generated cases each, so `npm test` checks them without a nightly
//! toolchain: OpenAI and Anthropic stream assembly, non-streamed responses of
//! both formats, tool arguments against their schema, and remote sync
//! updates (raw, as server frames, or spliced into a real one). Inputs are built
//! from the wire formats' own pieces (then cut, mixed with garbage and split
//! anywhere), so they reach deep into the decoders. The SSE parser's
//! properties are in `sse_fuzz.rs`.

use crate::support::fuzz_props;

use proptest::prelude::*;
use serde_json::{json, Value};

/// Short text with what breaks naive code: quotes, escapes, multibyte, controls.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z \"\\\\{}:,]{0,12}",
        Just("é—😀\u{0}\u{2029}".to_owned()),
        any::<String>().prop_map(|s| s.chars().take(8).collect()),
    ]
}

/// Any JSON value, small and nested, keys biased towards the schemas' fields.
fn json_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        prop::sample::select(vec![
            "city", "query", "top_k", "tags", "mode", "n", "x", "y", "deep", "deeper", "free", "never"
        ])
        .prop_map(str::to_owned),
        "[a-z]{1,4}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-30i64..30).prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        text().prop_map(Value::String),
        prop::sample::select(vec!["a", "b", "c", "read", "Oslo"]).prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 24, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A wire document: a JSON value, sometimes cut short or replaced by garbage.
fn damaged(value: Value, cut: prop::sample::Index, how: u8) -> String {
    let text = value.to_string();
    match how % 8 {
        0 => text.chars().take(cut.index(text.chars().count() + 1)).collect(),
        1 => "{not json".to_owned(),
        _ => text,
    }
}

/// An SSE body of `events` (each `(event name, data)`), with mixed line ends and comments.
fn sse_body(events: Vec<(Option<String>, String)>, crlf: bool) -> Vec<u8> {
    let end = if crlf { "\r\n" } else { "\n" };
    let mut out = String::new();
    for (i, (name, data)) in events.into_iter().enumerate() {
        if i % 3 == 2 {
            out.push_str(&format!(": keep-alive{end}"));
        }
        if let Some(name) = name {
            out.push_str(&format!("event: {name}{end}"));
        }
        out.push_str(&format!("data: {data}{end}{end}"));
    }
    out.into_bytes()
}

fn with_control(control: &[u8], body: &[u8]) -> Vec<u8> {
    [control, body].concat()
}

fn index() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (0u64..4).prop_map(|i| json!(i)),
        1 => Just(json!(-1)),
        1 => Just(json!("0")),
        1 => Just(json!(u64::MAX)),
    ]
}

/// One `chat.completion.chunk` (or the end marker, or garbage).
fn openai_chunk() -> impl Strategy<Value = String> {
    let call = (index(), prop::option::of(text()), prop::option::of(text()), prop::option::of(text())).prop_map(
        |(index, id, name, arguments)| json!({ "index": index, "id": id, "function": { "name": name, "arguments": arguments } }),
    );
    let choice = (
        prop::option::of(text()),
        prop::collection::vec(call, 0..3),
        prop::option::of(prop::sample::select(vec!["stop", "tool_calls", "length", "content_filter", "other"])),
    )
        .prop_map(|(content, calls, finish)| {
            json!({ "delta": { "content": content, "tool_calls": calls }, "finish_reason": finish })
        });
    let chunk = prop_oneof![
        6 => choice.prop_map(|c| json!({ "choices": [c] })),
        1 => (0u64..100, 0u64..100).prop_map(|(i, o)| json!({ "choices": [], "usage": { "prompt_tokens": i, "completion_tokens": o } })),
        1 => text().prop_map(|m| json!({ "error": { "message": m } })),
        1 => json_value(),
    ];
    prop_oneof![
        12 => (chunk, any::<prop::sample::Index>(), any::<u8>()).prop_map(|(c, cut, how)| damaged(c, cut, how)),
        1 => Just("[DONE]".to_owned()),
        1 => Just(String::new()),
    ]
}

/// One Anthropic Messages stream event `(name, data)`.
fn anthropic_event() -> impl Strategy<Value = (Option<String>, String)> {
    let block = prop_oneof![
        text().prop_map(|t| json!({ "type": "text", "text": t })),
        (text(), text())
            .prop_map(|(id, name)| json!({ "type": "tool_use", "id": id, "name": name, "input": {} })),
        Just(json!({ "type": "thinking", "thinking": "" })),
    ];
    let delta = prop_oneof![
        text().prop_map(|t| json!({ "type": "text_delta", "text": t })),
        text().prop_map(|j| json!({ "type": "input_json_delta", "partial_json": j })),
    ];
    let data = prop_oneof![
        1 => (0u64..50).prop_map(|n| json!({ "type": "message_start", "message": { "usage": { "input_tokens": n } } })),
        1 => (index(), block).prop_map(|(i, b)| json!({ "type": "content_block_start", "index": i, "content_block": b })),
        4 => (index(), delta).prop_map(|(i, d)| json!({ "type": "content_block_delta", "index": i, "delta": d })),
        1 => index().prop_map(|i| json!({ "type": "content_block_stop", "index": i })),
        1 => prop::option::of(prop::sample::select(vec!["end_turn", "tool_use", "max_tokens", "stop_sequence"]))
            .prop_map(|r| json!({ "type": "message_delta", "delta": { "stop_reason": r }, "usage": { "output_tokens": 3 } })),
        1 => Just(json!({ "type": "message_stop" })),
        1 => Just(json!({ "type": "ping" })),
        1 => prop::sample::select(vec!["overloaded_error", "api_error", "rate_limit_error", "weird_error"])
            .prop_map(|t| json!({ "type": "error", "error": { "type": t, "message": "m" } })),
        1 => json_value(),
    ];
    (data, any::<prop::sample::Index>(), any::<u8>(), any::<bool>()).prop_map(|(d, cut, how, named)| {
        let name = d
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .filter(|_| named);
        (name, damaged(d, cut, how))
    })
}

/// A whole OpenAI chat completion or Anthropic message.
fn response() -> impl Strategy<Value = Value> {
    let openai_call = (
        prop::option::of(text()),
        prop::option::of(text()),
        prop_oneof![text().prop_map(Value::String), json_value()],
    )
        .prop_map(
            |(id, name, arguments)| json!({ "id": id, "function": { "name": name, "arguments": arguments } }),
        );
    let openai = (prop::option::of(text()), prop::collection::vec(openai_call, 0..3), prop::option::of(text()))
        .prop_map(|(content, calls, finish)| {
            json!({ "choices": [{ "message": { "content": content, "tool_calls": calls }, "finish_reason": finish }],
                    "usage": { "prompt_tokens": 1, "completion_tokens": 2 } })
        });
    let block = prop_oneof![
        text().prop_map(|t| json!({ "type": "text", "text": t })),
        (text(), text(), json_value()).prop_map(
            |(id, name, input)| json!({ "type": "tool_use", "id": id, "name": name, "input": input })
        ),
    ];
    let anthropic = (prop::collection::vec(block, 0..3), prop::option::of(text())).prop_map(|(content, stop)| {
        json!({ "type": "message", "content": content, "stop_reason": stop, "usage": { "input_tokens": 1, "output_tokens": 2 } })
    });
    prop_oneof![openai, anthropic, json_value()]
}

/// A JSON Schema, nested, with every keyword the validator knows.
fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        prop::sample::select(vec![
            "string", "integer", "number", "boolean", "null", "object", "array"
        ])
        .prop_map(|t| json!({ "type": t })),
        Just(json!({ "type": ["number", "null"], "minimum": -5, "exclusiveMaximum": 10 })),
        Just(json!({ "type": "string", "minLength": 1, "maxLength": 3 })),
        Just(json!({ "enum": ["a", "b", 1, null] })),
        Just(json!({ "const": "read" })),
        Just(json!(true)),
        Just(json!(false)),
    ];
    leaf.prop_recursive(4, 32, 3, |inner| {
        prop_oneof![
            (prop::collection::btree_map("[a-z]{1,3}|city|x|y", inner.clone(), 0..3), any::<bool>(), any::<bool>())
                .prop_map(|(properties, closed, require)| {
                    let names: Vec<&String> = properties.keys().take(usize::from(require)).collect();
                    json!({ "type": "object", "properties": properties, "required": names, "additionalProperties": !closed })
                }),
            inner.clone().prop_map(|items| json!({ "type": "array", "items": items, "minItems": 0, "maxItems": 2 })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|s| json!({ "anyOf": s })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|s| json!({ "oneOf": s })),
            prop::collection::vec(inner, 1..3).prop_map(|s| json!({ "allOf": s })),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn openai_streams_assemble_the_same_in_any_chunking(
        chunks in prop::collection::vec(openai_chunk(), 0..10),
        crlf in any::<bool>(),
        cuts in any::<[u8; 2]>(),
    ) {
        let body = sse_body(chunks.into_iter().map(|c| (None, c)).collect(), crlf);
        fuzz_props::openai_stream(&with_control(&cuts, &body));
    }

    #[test]
    fn anthropic_streams_assemble_the_same_in_any_chunking(
        events in prop::collection::vec(anthropic_event(), 0..12),
        crlf in any::<bool>(),
        cuts in any::<[u8; 2]>(),
    ) {
        fuzz_props::anthropic_stream(&with_control(&cuts, &sse_body(events, crlf)));
    }

    #[test]
    fn whole_responses_decode_or_fail_typed(value in response(), cut in any::<prop::sample::Index>(), how in any::<u8>()) {
        fuzz_props::responses(damaged(value, cut, how).as_bytes());
    }

    #[test]
    fn arguments_of_real_schemas_are_accepted_only_when_valid(choice in 0u8..6, arguments in json_value(), cut in any::<prop::sample::Index>(), how in any::<u8>()) {
        fuzz_props::tool_arguments(&with_control(&[choice], damaged(arguments, cut, how).as_bytes()));
    }

    #[test]
    fn arguments_of_any_schema_are_accepted_only_when_valid(schema in schema(), arguments in json_value()) {
        let input = format!("{schema}\0{arguments}");
        fuzz_props::tool_arguments(&with_control(&[255], input.as_bytes()));
    }
}

#[test]
fn the_properties_fail_when_they_should() {
    // A delta for a call that never started breaks the assembly property.
    let broken = std::panic::catch_unwind(|| {
        let parts = [lectern::provider::StreamPart::ToolCallDelta {
            index: 3,
            arguments: "{}".into(),
        }];
        fuzz_props::check_parts(&parts, 100, 100);
    });
    assert!(broken.is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Remote sync updates: raw bytes, server frames, and a real update with bytes spliced in.
    #[test]
    fn a_hostile_or_broken_sync_update_changes_nothing_it_may_not(
        mode in 0u8..3,
        at in any::<u8>(),
        bytes in prop::collection::vec(any::<u8>(), 0..64),
    ) {
        fuzz_props::sync_update(&with_control(&[mode, at], &bytes));
    }
}
