//! The call policy around a provider, natively with a manual clock: retries
//! and their waits, no retry once a part was delivered, timeouts, abort, and
//! the rate limiter.

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::{block_on, LocalPool};
use futures::task::LocalSpawnExt;
use futures::StreamExt;
use lectern::domain::{Message, Role};
use lectern::http::{RecordedResponse, ReplayTransport};
use lectern::provider::{
    accumulate, provider_for, with_policy, Model, ModelRequest, ProviderConfig, StreamPart,
};
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::Error;
use serde_json::json;

fn text_stream(words: &[&str]) -> RecordedResponse {
    let mut chunks: Vec<String> = words
        .iter()
        .map(|w| {
            format!(
                "data: {}\n\n",
                json!({"choices":[{"index":0,"delta":{"content":w}}]})
            )
        })
        .collect();
    chunks.push("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n".into());
    chunks.push("data: [DONE]\n\n".into());
    RecordedResponse::ok_chunks("text/event-stream", chunks)
}

struct Setup {
    model: Rc<dyn Model>,
    transport: ReplayTransport,
    clock: ManualClock,
}

fn setup(policy: serde_json::Value) -> Setup {
    let mut config = json!({"kind": "openai", "baseUrl": "http://mock.test/v1", "model": "m"});
    config
        .as_object_mut()
        .unwrap()
        .extend(policy.as_object().unwrap().clone());
    let config: ProviderConfig = serde_json::from_value(config).unwrap();
    config.validate().unwrap();
    let transport = ReplayTransport::new();
    let clock = ManualClock::new(1_000_000.0);
    let inner = provider_for(&config.kind, Rc::new(transport.clone()), Rc::new(clock.clone())).unwrap();
    let model = with_policy(&config, inner, Rc::new(clock.clone()));
    Setup {
        model,
        transport,
        clock,
    }
}

fn request() -> ModelRequest {
    ModelRequest {
        messages: vec![Message::new("1".into(), "c", Role::User, "hi", 0.0)],
        ..Default::default()
    }
}

fn call(setup: &Setup) -> Result<String, Error> {
    block_on(async {
        let parts = setup.model.stream(&request(), &CancelToken::new()).await?;
        Ok(accumulate(parts).await?.text)
    })
}

#[test]
fn rate_limited_with_retry_after_is_retried_once_after_that_wait() {
    let s = setup(json!({}));
    s.transport.push(
        RecordedResponse::status(429, r#"{"error":{"message":"slow down"}}"#).with_header("Retry-After", "1"),
    );
    s.transport.push(text_stream(&["after ", "waiting"]));
    assert_eq!(call(&s).unwrap(), "after waiting");
    assert_eq!(s.transport.requests().len(), 2, "exactly one retry");
    assert_eq!(s.clock.total_slept_ms(), 1000, "waited what Retry-After asked");
}

#[test]
fn server_errors_exhaust_the_retries_with_growing_waits_then_fail_typed() {
    let s = setup(json!({"maxRetries": 2, "retry": {"initialDelayMs": 100, "maxDelayMs": 1000}}));
    for _ in 0..3 {
        s.transport
            .push(RecordedResponse::status(500, r#"{"error":{"message":"boom"}}"#));
    }
    let error = call(&s).unwrap_err();
    assert!(
        matches!(&error, Error::Api { status: 500, body } if body.contains("boom")),
        "{error:?}"
    );
    assert_eq!(s.transport.requests().len(), 3);
    let slept = s.clock.total_slept_ms();
    assert!(
        (150..=300).contains(&slept),
        "backoff 100 then 200, each jittered down to half: {slept}"
    );
}

#[test]
fn client_errors_are_not_retried() {
    let s = setup(json!({}));
    s.transport.push(RecordedResponse::status(
        400,
        r#"{"error":{"message":"bad request"}}"#,
    ));
    s.transport.push(RecordedResponse::status(401, "no"));
    assert_eq!(call(&s).unwrap_err().name(), "ApiError");
    assert_eq!(call(&s).unwrap_err().name(), "AuthError");
    assert_eq!(s.transport.requests().len(), 2);
    assert_eq!(s.clock.total_slept_ms(), 0);
}

#[test]
fn a_stream_that_breaks_after_a_part_is_not_retried() {
    let s = setup(json!({}));
    let mut cut = text_stream(&["partial ", "answer"]);
    cut.chunks.truncate(1);
    cut.drop_after_chunks = true;
    s.transport.push(cut);
    s.transport.push(text_stream(&["must not be used"]));
    let parts: Vec<_> = block_on(async {
        let stream = s.model.stream(&request(), &CancelToken::new()).await.unwrap();
        stream.collect::<Vec<_>>().await
    });
    assert_eq!(parts[0], Ok(StreamPart::TextDelta("partial ".into())));
    assert_eq!(parts[1].as_ref().unwrap_err().name(), "ConnectionError");
    assert_eq!(parts.len(), 2);
    assert_eq!(
        s.transport.requests().len(),
        1,
        "no retry once text was delivered"
    );
}

#[test]
fn a_connection_lost_before_any_part_is_retried() {
    let s = setup(json!({}));
    let mut empty = text_stream(&[]);
    empty.chunks.clear();
    empty.drop_after_chunks = true;
    s.transport.push(empty);
    s.transport.push(text_stream(&["second try"]));
    assert_eq!(call(&s).unwrap(), "second try");
    assert_eq!(s.transport.requests().len(), 2);
}

#[test]
fn first_chunk_timeout() {
    let s = setup(json!({"timeouts": {"firstChunkMs": 5000}}));
    let mut hang = text_stream(&[]);
    hang.hang_before_headers = true;
    s.transport.push(hang);
    assert_eq!(call(&s).unwrap_err(), Error::Timeout { after_ms: 5000 });
    assert_eq!(s.transport.requests().len(), 1, "timeouts are not retried");
}

#[test]
fn idle_timeout_between_parts() {
    let s = setup(json!({"timeouts": {"idleMs": 700}}));
    let mut stall = text_stream(&["first "]);
    stall.chunks.truncate(1);
    stall.hang_after_chunks = true;
    s.transport.push(stall);
    let parts: Vec<_> = block_on(async {
        let stream = s.model.stream(&request(), &CancelToken::new()).await.unwrap();
        stream.collect::<Vec<_>>().await
    });
    assert_eq!(parts[0], Ok(StreamPart::TextDelta("first ".into())));
    assert_eq!(parts[1], Err(Error::Timeout { after_ms: 700 }));
}

#[test]
fn abort_mid_stream_ends_with_aborted() {
    let s = setup(json!({"timeouts": {"idleMs": null, "firstChunkMs": null}}));
    let mut stall = text_stream(&["before abort"]);
    stall.chunks.truncate(1);
    stall.hang_after_chunks = true;
    s.transport.push(stall);
    let cancel = CancelToken::new();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut pool = LocalPool::new();
    let (model, token, sink) = (s.model.clone(), cancel.clone(), seen.clone());
    pool.spawner()
        .spawn_local(async move {
            match model.stream(&request(), &token).await {
                Ok(mut parts) => {
                    while let Some(part) = parts.next().await {
                        sink.borrow_mut().push(part);
                    }
                }
                Err(e) => sink.borrow_mut().push(Err(e)),
            }
        })
        .unwrap();
    pool.run_until_stalled();
    assert_eq!(*seen.borrow(), [Ok(StreamPart::TextDelta("before abort".into()))]);
    cancel.cancel();
    pool.run_until_stalled();
    assert_eq!(seen.borrow()[1], Err(Error::Aborted));
    assert_eq!(seen.borrow().len(), 2);
}

#[test]
fn aborted_before_sending_sends_nothing() {
    let s = setup(json!({}));
    let cancel = CancelToken::new();
    cancel.cancel();
    let result = block_on(s.model.stream(&request(), &cancel));
    assert_eq!(result.err(), Some(Error::Aborted));
    assert!(s.transport.requests().is_empty());
}

#[test]
fn rate_limiter_delays_the_second_request_of_the_minute() {
    let s = setup(json!({"rateLimit": {"requestsPerMinute": 1}}));
    s.transport.push(text_stream(&["one"]));
    s.transport.push(text_stream(&["two"]));
    assert_eq!(call(&s).unwrap(), "one");
    assert_eq!(s.clock.total_slept_ms(), 0);
    assert_eq!(call(&s).unwrap(), "two");
    assert_eq!(
        s.clock.total_slept_ms(),
        60_000,
        "waited for the window rather than failing"
    );
}

#[test]
fn a_timed_out_call_lets_go_of_its_request_at_once() {
    for policy in [
        json!({"timeouts": {"idleMs": 700}}),
        json!({"timeouts": {"totalMs": 900, "idleMs": null}}),
    ] {
        let s = setup(policy.clone());
        let mut stall = text_stream(&["first "]);
        stall.chunks.truncate(1);
        stall.hang_after_chunks = true;
        s.transport.push(stall);
        block_on(async {
            let mut parts = s.model.stream(&request(), &CancelToken::new()).await.unwrap();
            assert_eq!(
                parts.next().await,
                Some(Ok(StreamPart::TextDelta("first ".into())))
            );
            assert_eq!(s.transport.open_requests(), 1);
            assert!(matches!(parts.next().await, Some(Err(Error::Timeout { .. }))));
            assert_eq!(
                s.transport.open_requests(),
                0,
                "{policy}: released while the caller still holds the stream"
            );
            assert_eq!(parts.next().await, None);
        });
    }
    let s = setup(json!({"timeouts": {"firstChunkMs": 5000}}));
    let mut hang = text_stream(&[]);
    hang.hang_before_headers = true;
    s.transport.push(hang);
    assert_eq!(call(&s).unwrap_err(), Error::Timeout { after_ms: 5000 });
    assert_eq!(s.transport.open_requests(), 0);
}
