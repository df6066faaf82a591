//! The `Lectern` class.

use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;
use web_sys::AbortSignal;

use super::custom_provider::JsFunctionModel;
use super::js::{error_to_js, from_js, string_arg, to_js};
use super::options::read_options;
use crate::agent::{Agent, SendOptions, TurnError, TurnResult};
use crate::domain::NewConversation;
use crate::error::{Error, Result};
use crate::events::EventSink;
use crate::http::FetchTransport;
use crate::provider::{provider_for, with_policy, CustomSettings, Model, ProviderConfig, ProviderKind};
use crate::storage::{IndexedDbStore, MemoryStore, Store};
use crate::time::{BrowserClock, Clock};

struct Inner {
    agent: Agent,
    database: Option<Rc<IndexedDbStore>>,
    events: EventSink,
    closed: Cell<bool>,
}

impl Inner {
    fn ensure_open(&self) -> Result<()> {
        if self.closed.get() {
            Err(Error::storage("this Lectern instance was closed; open a new one"))
        } else {
            Ok(())
        }
    }
}

#[wasm_bindgen]
extern "C" {
    /// The optional argument of `createConversation`.
    #[wasm_bindgen(typescript_type = "NewConversation")]
    pub type NewConversationInput;

    /// The optional options of `send`.
    #[wasm_bindgen(typescript_type = "SendOptions")]
    pub type SendOptionsInput;
}

/// An agent bound to one database and one provider.
#[wasm_bindgen]
pub struct Lectern {
    inner: Rc<Inner>,
}

/// Runs `work` as a promise that resolves with its value converted for JS or
/// rejects with a typed JS `Error`.
fn promise<T, F>(work: F) -> Promise
where
    T: serde::Serialize,
    F: Future<Output = Result<T>> + 'static,
{
    future_to_promise(async move {
        match work.await.and_then(|value| to_js(&value)) {
            Ok(value) => Ok(value),
            Err(error) => Err(error_to_js(&error)),
        }
    })
}

fn event_sink(callback: Option<Function>) -> EventSink {
    match callback {
        None => EventSink::none(),
        Some(callback) => EventSink::new(move |event| {
            if let Ok(value) = to_js(&event) {
                // A callback that throws must not break the turn.
                let _ = callback.call1(&JsValue::NULL, &value);
            }
        }),
    }
}

fn model_for(config: &ProviderConfig, call: Option<Function>) -> Result<Rc<dyn Model>> {
    let clock: Rc<dyn Clock> = Rc::new(BrowserClock);
    let inner: Rc<dyn Model> = match (&config.kind, call) {
        (ProviderKind::Custom(CustomSettings { model, stream }), Some(call)) => {
            Rc::new(JsFunctionModel::new(call, model.clone(), *stream))
        }
        (kind, _) => provider_for(kind, Rc::new(FetchTransport), clock.clone())?,
    };
    Ok(with_policy(config, inner, clock))
}

/// The JS `Error` a failed turn rejects with: its kind's error, plus
/// `partialText` (answer text streamed before the failure) and `steps`.
fn turn_error_to_js(failure: &TurnError) -> JsValue {
    let error = error_to_js(&failure.error);
    if let Some(text) = &failure.partial_text {
        let _ = Reflect::set(&error, &"partialText".into(), &JsValue::from_str(text));
    }
    let _ = Reflect::set(&error, &"steps".into(), &JsValue::from(failure.steps));
    error
}

/// Reads `send`'s options: `{ signal?: AbortSignal }`.
fn send_options(input: Option<SendOptionsInput>) -> Result<SendOptions> {
    let options = SendOptions::default();
    let Some(input) = input
        .map(JsValue::from)
        .filter(|v| !v.is_undefined() && !v.is_null())
    else {
        return Ok(options);
    };
    if !input.is_object() {
        return Err(Error::config("send options must be an object"));
    }
    for key in Object::keys(input.unchecked_ref::<Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        if key != "signal" {
            return Err(Error::config(format!("unknown send option {key:?}")));
        }
    }
    let signal = Reflect::get(&input, &"signal".into()).unwrap_or(JsValue::UNDEFINED);
    if signal.is_undefined() || signal.is_null() {
        return Ok(options);
    }
    let signal: AbortSignal = signal
        .dyn_into()
        .map_err(|_| Error::config("options.signal must be an AbortSignal"))?;
    if signal.aborted() {
        options.cancel.cancel();
    } else {
        let token = options.cancel.clone();
        let on_abort = Closure::once_into_js(move || token.cancel());
        signal
            .add_event_listener_with_callback("abort", on_abort.unchecked_ref())
            .map_err(|_| Error::config("cannot listen to options.signal"))?;
    }
    Ok(options)
}

impl Lectern {
    /// What `Lectern.open` does, for Rust callers: the instance, or the JS `Error` it rejects with.
    pub async fn connect(options: JsValue) -> std::result::Result<Lectern, JsValue> {
        let opened = async {
            let (options, callbacks) = read_options(&options)?;
            let config = options.agent_config()?;
            let (store, database): (Rc<dyn Store>, _) = match &options.db_name {
                Some(name) => {
                    let db = Rc::new(IndexedDbStore::open(name).await?);
                    (db.clone(), Some(db))
                }
                None => (Rc::new(MemoryStore::new()), None),
            };
            let model = model_for(&options.provider, callbacks.provider_call)?;
            let agent = Agent::new(store, model, Rc::new(BrowserClock), config);
            Ok::<_, Error>(Lectern {
                inner: Rc::new(Inner {
                    agent,
                    database,
                    events: event_sink(callbacks.on_event),
                    closed: Cell::new(false),
                }),
            })
        };
        opened.await.map_err(|e| error_to_js(&e))
    }
}

#[wasm_bindgen]
impl Lectern {
    /// Opens (or creates) the database and connects the provider.
    #[wasm_bindgen(js_name = open, unchecked_return_type = "Promise<Lectern>")]
    pub fn open(#[wasm_bindgen(unchecked_param_type = "LecternOptions")] options: JsValue) -> Promise {
        future_to_promise(async move { Lectern::connect(options).await.map(JsValue::from) })
    }

    /// Creates a conversation: `{ title? }` → `{ id, title, createdAt }`.
    #[wasm_bindgen(js_name = createConversation, unchecked_return_type = "Promise<Conversation>")]
    pub fn create_conversation(&self, input: Option<NewConversationInput>) -> Promise {
        let inner = self.inner.clone();
        promise(async move {
            inner.ensure_open()?;
            let new: NewConversation = match input {
                Some(input) => from_js(input.into(), "createConversation input")?,
                None => NewConversation::default(),
            };
            inner.agent.create_conversation(new).await
        })
    }

    /// Every conversation, oldest first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Conversation[]>")]
    pub fn conversations(&self) -> Promise {
        let inner = self.inner.clone();
        promise(async move {
            inner.ensure_open()?;
            inner.agent.conversations().await
        })
    }

    /// Deletes a conversation and its messages.
    #[wasm_bindgen(js_name = deleteConversation, unchecked_return_type = "Promise<void>")]
    pub fn delete_conversation(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
    ) -> Promise {
        let inner = self.inner.clone();
        promise(async move {
            inner.ensure_open()?;
            let id = string_arg(&conversation_id, "conversationId")?;
            inner.agent.store().delete_conversation(&id).await
        })
    }

    /// Sends a user message and resolves with the assistant's answer.
    #[wasm_bindgen(unchecked_return_type = "Promise<SendResult>")]
    pub fn send(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        options: Option<SendOptionsInput>,
    ) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let turn = async {
                inner.ensure_open()?;
                let id = string_arg(&conversation_id, "conversationId")?;
                let text = string_arg(&text, "text")?;
                let options = send_options(options)?;
                inner.agent.send(&id, &text, &options, &inner.events).await
            };
            let result: std::result::Result<TurnResult, TurnError> = turn.await;
            match result {
                Ok(value) => to_js(&value).map_err(|e| error_to_js(&e)),
                Err(failure) => Err(turn_error_to_js(&failure)),
            }
        })
    }

    /// The messages of a conversation, oldest first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Message[]>")]
    pub fn messages(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
    ) -> Promise {
        let inner = self.inner.clone();
        promise(async move {
            inner.ensure_open()?;
            let id = string_arg(&conversation_id, "conversationId")?;
            inner.agent.messages(&id).await
        })
    }

    /// Closes the database; later calls on this instance reject.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        let inner = self.inner.clone();
        promise(async move {
            if !inner.closed.replace(true) {
                if let Some(db) = &inner.database {
                    db.close();
                }
            }
            Ok(())
        })
    }
}
