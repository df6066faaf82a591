//! A model served by a host JS function speaking the OpenAI format, so WebLLM,
//! a proxy or a test double plugs in without a server.
//!
//! The function gets an OpenAI chat-completions request object and `{ signal }`
//! (an `AbortSignal` that aborts when the call is cancelled, times out or is
//! given up), and returns (or resolves with) either a `chat.completion` object
//! or an async iterable of `chat.completion.chunk` objects.

use futures::future::LocalBoxFuture;
use js_sys::{Function, Promise, Reflect, Symbol};
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortController;

use crate::domain::SortedMap;
use crate::error::{Error, Result};
use crate::provider::event_parts::{decode_events, EventStream};
use crate::provider::openai::{parts_from_response, request_body, ChunkDecoder, OpenAiSettings};
use crate::provider::sse::SseEvent;
use crate::provider::{error_for, CustomSettings, Model, ModelRequest, PartStream};
use crate::runtime::cancel::CancelToken;
use crate::wasm::js::{describe_js, to_js};
use crate::web::{from_js_text, JsonTextError};

/// A [`Model`] that calls a host function.
pub struct JsFunctionModel {
    function: Function,
    settings: OpenAiSettings,
}

impl JsFunctionModel {
    /// Wraps `function`; each request carries the settings' model, `stream`,
    /// `temperature` and `max_tokens`.
    pub fn new(function: Function, settings: &CustomSettings) -> Self {
        JsFunctionModel {
            function,
            settings: OpenAiSettings {
                base_url: String::new(),
                model: settings.model.clone(),
                api_key: None,
                stream: settings.stream,
                headers: SortedMap::new(),
                temperature: settings.temperature,
                max_tokens: settings.max_tokens,
                tool_choice: None,
                replay_reasoning: None,
                max_tokens_param: None,
            },
        }
    }
}

/// The typed error for something the host function threw: a `status` maps
/// as an HTTP status would (`retryAfterMs` with 429), none is a `Connection` error.
fn thrown(value: &JsValue) -> Error {
    let number = |key: &str| Reflect::get(value, &key.into()).ok().and_then(|v| v.as_f64());
    let message = describe_js(value);
    match number("status") {
        Some(status) => {
            let retry_after_ms = number("retryAfterMs").map(|ms| ms.max(0.0) as u64);
            error_for(status as u16, &message, retry_after_ms)
        }
        None => Error::connection(format!("the custom provider failed: {message}")),
    }
}

fn to_json(value: &JsValue) -> Result<Value> {
    from_js_text(value).map_err(|e| match e {
        JsonTextError::Serde(e) => Error::protocol(format!("the custom provider returned bad JSON: {e}")),
        JsonTextError::NotJson => Error::protocol("the custom provider returned a value that is not JSON"),
    })
}

async fn await_js(value: JsValue, cancel: &CancelToken) -> Result<JsValue> {
    let promise = Promise::resolve(&value);
    cancel
        .run(async { JsFuture::from(promise).await.map_err(|e| thrown(&e)) })
        .await
}

/// Aborts the call's signal when dropped: an answer given up (a timeout, a
/// dropped stream) stops the host's work — a local model stops generating.
/// Once the answer was read to the end, aborting changes nothing.
struct AbortOnDrop(AbortController);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The second argument of the host's function: `{ signal }`, aborted on
/// cancellation and when the returned guard is dropped.
fn call_options(cancel: &CancelToken) -> Result<(JsValue, AbortOnDrop)> {
    let controller =
        AbortController::new().map_err(|_| Error::config("this browser has no AbortController"))?;
    let options = js_sys::Object::new();
    Reflect::set(&options, &"signal".into(), &controller.signal())
        .map_err(|_| Error::config("cannot build the custom provider's options"))?;
    let on_cancel = controller.clone();
    cancel.on_cancel(move || on_cancel.abort());
    Ok((options.into(), AbortOnDrop(controller)))
}

/// The chunks of an async iterator as events, one `next()` at a time as
/// they are asked for: each chunk's JSON text, then the `[DONE]` marker when
/// the iterator ends. A failed `next()` is the last item, and the iterator
/// is told to `return()`. The guard aborts the call's signal once the events
/// are dropped (read to their end, or given up).
fn iterator_events(iterator: JsValue, cancel: CancelToken, guard: AbortOnDrop) -> EventStream {
    struct State {
        iterator: JsValue,
        cancel: CancelToken,
        ended: bool,
        _guard: AbortOnDrop,
    }
    let state = State {
        iterator,
        cancel,
        ended: false,
        _guard: guard,
    };
    Box::pin(futures::stream::unfold(state, |mut s| async move {
        if s.ended {
            return None;
        }
        let event = match next_chunk(&s.iterator, &s.cancel).await {
            Ok(Some(chunk)) => chunk_text(&chunk).map(data_event),
            Ok(None) => {
                s.ended = true;
                Ok(data_event("[DONE]".to_owned()))
            }
            Err(e) => {
                stop_iterator(&s.iterator);
                Err(e)
            }
        };
        s.ended |= event.is_err();
        Some((event, s))
    }))
}

/// An event carrying `data`, as an SSE `data:` line would.
fn data_event(data: String) -> SseEvent {
    SseEvent {
        data,
        ..SseEvent::default()
    }
}

/// A chunk's JSON text.
fn chunk_text(chunk: &JsValue) -> Result<String> {
    js_sys::JSON::stringify(chunk)
        .ok()
        .and_then(|text| text.as_string())
        .ok_or_else(|| Error::protocol("the custom provider returned a value that is not JSON"))
}

/// Calls the iterator's `return()`, if it has one: the host stops producing.
fn stop_iterator(iterator: &JsValue) {
    if let Ok(stop) = Reflect::get(iterator, &"return".into()) {
        if let Some(stop) = stop.dyn_ref::<Function>() {
            let _ = stop.call0(iterator);
        }
    }
}

async fn next_chunk(iterator: &JsValue, cancel: &CancelToken) -> Result<Option<JsValue>> {
    let next: Function = Reflect::get(iterator, &"next".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| Error::protocol("the custom provider's iterator has no next()"))?;
    let step = next.call0(iterator).map_err(|e| thrown(&e))?;
    let step = await_js(step, cancel).await?;
    let done = Reflect::get(&step, &"done".into())
        .ok()
        .and_then(|d| d.as_bool())
        .unwrap_or(false);
    if done {
        return Ok(None);
    }
    Ok(Some(
        Reflect::get(&step, &"value".into()).unwrap_or(JsValue::UNDEFINED),
    ))
}

impl Model for JsFunctionModel {
    fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<PartStream>> {
        let body = request_body(&self.settings, request);
        let cancel = cancel.clone();
        Box::pin(async move {
            let (options, guard) = call_options(&cancel)?;
            let returned = self
                .function
                .call2(&JsValue::NULL, &to_js(&body)?, &options)
                .map_err(|e| thrown(&e))?;
            let value = await_js(returned, &cancel).await?;
            let async_iterator = Reflect::get(&value, &Symbol::async_iterator()).ok();
            if let Some(open) = async_iterator.and_then(|f| f.dyn_into::<Function>().ok()) {
                let iterator = open.call0(&value).map_err(|e| thrown(&e))?;
                return Ok(decode_events(
                    iterator_events(iterator, cancel, guard),
                    ChunkDecoder::new(),
                ));
            }
            let json = to_json(&value)?;
            let parts = parts_from_response(&json.to_string())?;
            Ok(Box::pin(futures::stream::iter(parts.into_iter().map(Ok))) as PartStream)
        })
    }

    fn model_name(&self) -> &str {
        &self.settings.model
    }
}
