//! The `Lectern` class.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

use super::builtin_tools::register_builtin_tools;
use super::event_stream::{async_iterable, EventQueue};
use super::host::changes::{is_shared, SharedChanges};
use super::models::model_for;
use super::options::read_options;
use super::send_options::{read_send_options, turn_error_to_js};
use super::split_off::split_off;
use super::stored::{open_stored, Stored};
use super::tool_call_shape::shape_records_in;
use crate::agent::{
    book_context_warning, friendly_message, validate_config, Agent, SendOptions, TurnError, TurnResult,
};
use crate::domain::NewConversation;
use crate::error::{Error, Result, StorageReason};
use crate::events::{Event, EventKind, EventSink};
use crate::provider::ProviderConfig;
use crate::wasm::js::{error_to_js, from_js, string_arg, to_js};
use crate::wasm::page::host::approval_options::js_rules;
use crate::wasm::page::host::books_remote::RemoteBooks;
use crate::wasm::page::host::js_tool::JsTool;
use crate::wasm::page::host::listeners::Listeners;
use crate::wasm::page::host::mention_resolver::JsMentionResolver;
use crate::wasm::page::host::sync_follow::SyncFollow;
use crate::wasm::panic_guard::{self, check_js, guarded_promise};
use crate::wasm::promise::promise;
use crate::web::{BrowserClock, IndexedDbStore, WebLocks, DEFAULT_BLOCKED_TIMEOUT_MS};

#[wasm_bindgen]
extern "C" {
    /// The optional argument of `createConversation`.
    #[wasm_bindgen(typescript_type = "NewConversation")]
    pub type NewConversationInput;

    /// The optional options of `send` and `stream`.
    #[wasm_bindgen(typescript_type = "SendOptions")]
    pub type SendOptionsInput;

    /// The argument of `registerTool`.
    #[wasm_bindgen(typescript_type = "ToolSpec")]
    pub type ToolSpecInput;
}

/// Another listener of one turn's events (the event stream's queue).
type ExtraListener = Rc<dyn Fn(&JsValue)>;

pub(super) struct Inner {
    pub(super) agent: Agent,
    provider: ProviderConfig,
    stored: Stored,
    /// `onEvent` and the `subscribe`rs.
    pub(super) listeners: Rc<Listeners>,
    pub(super) friendly_errors: bool,
    closed: Cell<bool>,
    /// The books, in the books module loaded on first use.
    pub(super) books: Rc<RemoteBooks>,
    /// With `dbName`: the changes this instance and the other tabs on its database tell each other.
    pub(super) changes: Option<Rc<SharedChanges>>,
    /// With `sync`: the follower of the user's synced document.
    pub(super) sync: SyncFollow,
}

impl Inner {
    /// Stops the sync follower (once what it was writing is written), then
    /// closes the books, the tabs' channel and the database; once.
    async fn close(&self) {
        if self.closed.get() {
            return;
        }
        self.sync.close().await;
        if !self.closed.replace(true) {
            self.books.close();
            if let Some(changes) = &self.changes {
                changes.close();
            }
            if let Some(db) = self.database() {
                db.close();
            }
        }
    }

    /// The IndexedDB store, when there is one.
    fn database(&self) -> Option<&Rc<IndexedDbStore>> {
        self.stored.database()
    }

    /// The agent, handed its store's archive operations ([`StoreArchive`])
    /// first. Only split-off work calls this, so the archive's code (and the
    /// vtable that reaches it) is in the chunks, not in the page's module.
    ///
    /// [`StoreArchive`]: crate::storage::StoreArchive
    pub(super) fn archived_agent(&self) -> &Agent {
        self.agent.set_archive(self.stored.archive());
        &self.agent
    }

    pub(super) fn ensure_open(&self) -> Result<()> {
        if self.closed.get() {
            return Err(Error::storage_because(
                StorageReason::Closed,
                "this Lectern instance was closed; open a new one",
            ));
        }
        if self.database().is_some_and(|db| db.is_closed()) {
            return Err(Error::storage_because(
                StorageReason::Closed,
                "the database was closed because another tab opened a newer version of it \
                 (or deleted it); reload the page to go on",
            ));
        }
        Ok(())
    }

    /// A sink that hands events to the listeners (those subscribed when each
    /// event comes, so one that subscribes mid-turn hears the rest) and to `also`.
    pub(super) fn sink(&self, also: Option<ExtraListener>) -> EventSink {
        let listeners = self.listeners.clone();
        let changes = self.changes.clone();
        EventSink::new(move |event: Event| {
            let shared = changes.as_ref().filter(|_| is_shared(&event.kind));
            if listeners.is_empty() && also.is_none() && shared.is_none() {
                return;
            }
            if let Ok(value) = to_js(&event) {
                if let Some(changes) = shared {
                    changes.post(&value);
                }
                // A listener that throws must not break the turn; `emit` freezes the event
                // first, so neither a listener nor the stream's queue can change it.
                listeners.emit(&value);
                if let Some(also) = &also {
                    also(&value);
                }
            }
        })
    }
}

/// An agent bound to one database and one provider.
#[wasm_bindgen]
pub struct Lectern {
    pub(super) inner: Rc<Inner>,
}

/// `SendResult` with `success: true`, or in friendly mode a failure as `{ success: false, status: 'failed', text, error }`.
pub(super) fn turn_outcome(
    result: std::result::Result<TurnResult, TurnError>,
    friendly: bool,
) -> std::result::Result<JsValue, JsValue> {
    match result {
        Ok(value) => {
            let value = to_js(&value).map_err(|e| error_to_js(&e))?;
            shape_records_in(&value, "toolCalls");
            let _ = Reflect::set(&value, &"success".into(), &JsValue::TRUE);
            Ok(value)
        }
        Err(failure) if friendly => {
            let outcome = Object::new();
            let _ = Reflect::set(&outcome, &"success".into(), &JsValue::FALSE);
            let _ = Reflect::set(&outcome, &"status".into(), &"failed".into());
            let _ = Reflect::set(&outcome, &"text".into(), &friendly_message(&failure.error).into());
            let _ = Reflect::set(&outcome, &"error".into(), &turn_error_to_js(&failure));
            Ok(outcome.into())
        }
        Err(failure) => Err(turn_error_to_js(&failure)),
    }
}

/// The `warning` event of an instance whose conversation locks fell back to
/// its own, in memory (no usable `navigator.locks`).
fn web_locks_warning() -> JsValue {
    let event = serde_json::json!({
        "type": "warning",
        "code": "webLocksUnavailable",
        "message": "Web Locks (navigator.locks) are unavailable here: this instance queues its own turns \
            on a conversation, but other tabs on the same database are not kept apart from them.",
    });
    to_js(&event).unwrap_or(JsValue::NULL)
}

/// The `error` event of a turn refused before it began (no turn id).
pub(super) fn error_event(conversation_id: String, error: &Error) -> JsValue {
    let event = Event {
        conversation_id,
        turn_id: String::new(),
        kind: EventKind::Error {
            name: error.name().to_owned(),
            message: error.to_string(),
        },
    };
    to_js(&event).unwrap_or(JsValue::UNDEFINED)
}

impl Lectern {
    /// What `Lectern.open` does, for Rust callers: the instance, or the JS `Error` it rejects with.
    pub async fn connect(options: JsValue) -> std::result::Result<Lectern, JsValue> {
        panic_guard::install();
        check_js()?;
        let opened = async {
            let (options, mut callbacks) = read_options(&options)?;
            let config = options.agent_config(js_rules(std::mem::take(&mut callbacks.policy_functions)))?;
            let listeners = Rc::new(Listeners::with(callbacks.on_event.take()));
            // The model first: a provider chunk that does not load leaves no database open.
            let model = model_for(&options.provider, callbacks.provider_call).await?;
            let blocked_timeout_ms = options.blocked_timeout_ms.unwrap_or(DEFAULT_BLOCKED_TIMEOUT_MS);
            let (store, stored) =
                open_stored(options.db_name.as_deref(), blocked_timeout_ms, listeners.clone()).await?;
            let heard = listeners.clone();
            let emit = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| heard.emit(&event));
            let books = Rc::new(RemoteBooks::new(
                &options.books_settings(),
                callbacks.embed,
                emit.into_js_value().unchecked_into(),
            )?);
            let mut agent = Agent::new(store, model, Rc::new(BrowserClock), config)
                .with_archive_loader(stored.archive_loader())
                .with_library(books.clone())?;
            register_builtin_tools(&agent, &options.builtin_tools, &options.weather)?;
            let changes = options
                .db_name
                .as_deref()
                .map(|name| Rc::new(SharedChanges::open(name, listeners.clone())));
            if let Some(name) = &options.db_name {
                // Every instance on this database, in any tab, shares the conversation locks.
                let warned = listeners.clone();
                let locks = WebLocks::new(name, move || warned.emit(&web_locks_warning()));
                agent = agent.with_turn_locks(Rc::new(locks));
            }
            if let Some(resolve) = callbacks.resolve_mention {
                agent = agent.with_mention_resolver(Rc::new(JsMentionResolver::new(resolve)));
            }
            Ok::<_, Error>(Lectern {
                inner: Rc::new(Inner {
                    agent,
                    provider: options.provider,
                    stored,
                    listeners,
                    friendly_errors: options.friendly_errors,
                    closed: Cell::new(false),
                    books,
                    changes,
                    sync: std::mem::take(&mut callbacks.sync),
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
        panic_guard::install();
        guarded_promise(async move {
            let lectern = Lectern::connect(options).await?;
            let inner = lectern.inner.clone();
            let lectern = JsValue::from(lectern);
            if let Err(error) = inner.sync.start(&lectern, &inner.listeners).await {
                // A follower that did not start leaves no instance open.
                inner.close().await;
                return Err(error);
            }
            Ok(lectern)
        })
    }

    /// The follower of the user's synced document (`lectern/sync`'s
    /// `SyncFollower`) when opened with `sync`, else `undefined`.
    #[wasm_bindgen(getter, unchecked_return_type = "SyncFollower | undefined")]
    pub fn sync(&self) -> JsValue {
        self.inner.sync.follower()
    }

    /// Creates a conversation: `{ title? }` → `{ id, title, createdAt }`.
    #[wasm_bindgen(js_name = createConversation, unchecked_return_type = "Promise<Conversation>")]
    pub fn create_conversation(&self, input: Option<NewConversationInput>) -> Promise {
        self.call(|inner| async move {
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
        self.call(|inner| async move { inner.agent.conversations().await })
    }

    /// Deletes a conversation and its messages.
    #[wasm_bindgen(js_name = deleteConversation, unchecked_return_type = "Promise<void>")]
    pub fn delete_conversation(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
    ) -> Promise {
        self.call_js_with_id(conversation_id, "conversationId", delete_conversation)
    }

    /// Sends a user message and resolves with the assistant's answer.
    #[wasm_bindgen(unchecked_return_type = "Promise<SendOutcome>")]
    pub fn send(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        options: Option<SendOptionsInput>,
    ) -> Promise {
        self.call_turn(|inner| async move {
            let id = string_arg(&conversation_id, "conversationId")?;
            let text = string_arg(&text, "text")?;
            let options = read_send_options(options.map(JsValue::from))?;
            inner.agent.send(&id, &text, &options, &inner.sink(None)).await
        })
    }

    /// Sends a user message and returns the turn's events as an async iterable
    /// (`for await (const ev of lectern.stream(id, text))`); it ends after `finish`, `error` or `approvalRequested`.
    /// Leaving the loop early aborts the turn.
    #[wasm_bindgen(unchecked_return_type = "AsyncIterable<LecternEvent>")]
    pub fn stream(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        options: Option<SendOptionsInput>,
    ) -> std::result::Result<JsValue, JsValue> {
        check_js()?;
        let inner = self.inner.clone();
        let queue = Rc::new(RefCell::new(EventQueue::default()));
        let parsed = read_send_options(options.map(JsValue::from));
        let cancel = parsed.as_ref().map(|o| o.cancel.clone()).unwrap_or_default();
        let iterable = async_iterable(queue.clone(), move || cancel.cancel());
        // A panic while the turn runs ends the stream with an `InternalError` event.
        let (stopped, stopped_id) = (queue.clone(), conversation_id.as_string().unwrap_or_default());
        let tracked = panic_guard::track(Box::new(move |error| {
            if let Ok(mut queue) = stopped.try_borrow_mut() {
                queue.push(error_event(stopped_id, error));
                queue.close();
            }
        }));
        wasm_bindgen_futures::spawn_local(async move {
            let saw_error = Rc::new(Cell::new(false));
            let (pushed, seen) = (queue.clone(), saw_error.clone());
            let forward: ExtraListener = Rc::new(move |event: &JsValue| {
                let kind = Reflect::get(event, &"type".into())
                    .ok()
                    .and_then(|t| t.as_string());
                if kind.as_deref() == Some("error") {
                    seen.set(true);
                }
                pushed.borrow_mut().push(event.clone());
            });
            let id = conversation_id.as_string().unwrap_or_default();
            let turn = async {
                inner.ensure_open()?;
                let id = string_arg(&conversation_id, "conversationId")?;
                let text = string_arg(&text, "text")?;
                let options: SendOptions = parsed?;
                inner
                    .agent
                    .send(&id, &text, &options, &inner.sink(Some(forward.clone())))
                    .await
            };
            if let Err(failure) = turn.await {
                if !saw_error.get() {
                    // Refused before the turn began (bad arguments, unknown conversation, busy).
                    forward(&error_event(id, &failure.error));
                }
            }
            panic_guard::untrack(tracked);
            queue.borrow_mut().close();
        });
        Ok(iterable)
    }

    /// The messages of a conversation, oldest first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Message[]>")]
    pub fn messages(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
    ) -> Promise {
        self.call_with_id(conversation_id, "conversationId", |inner, id| async move {
            inner.agent.messages(&id).await
        })
    }

    /// Registers a tool (replacing one of the same name): `{ name, description, parameters, execute, timeoutMs?, cacheTtlMs?, cacheScope? }`.
    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(&self, tool: ToolSpecInput) -> std::result::Result<(), JsValue> {
        check_js()?;
        let tool = JsTool::from_spec(&tool.into()).map_err(|e| error_to_js(&e))?;
        self.inner
            .agent
            .register_tool(Rc::new(tool))
            .map_err(|e| error_to_js(&e))
    }

    /// Removes a tool; whether it was registered.
    #[wasm_bindgen(js_name = unregisterTool)]
    pub fn unregister_tool(&self, name: &str) -> std::result::Result<bool, JsValue> {
        check_js()?;
        Ok(self.inner.agent.tools().unregister(name))
    }

    /// Names of the registered tools.
    #[wasm_bindgen(js_name = toolNames)]
    pub fn tool_names(&self) -> std::result::Result<Vec<String>, JsValue> {
        check_js()?;
        Ok(self.inner.agent.tools().names())
    }

    /// The registered tools as the model sees them: `{ name, description, parameters }`, by name.
    #[wasm_bindgen(js_name = toolDefinitions, unchecked_return_type = "ToolDefinition[]")]
    pub fn tool_definitions(&self) -> std::result::Result<JsValue, JsValue> {
        check_js()?;
        to_js(&self.inner.agent.tools().definitions(|_| true)).map_err(|e| error_to_js(&e))
    }

    /// Forgets cached tool results: of one tool, or of all.
    #[wasm_bindgen(js_name = clearToolCache)]
    pub fn clear_tool_cache(&self, name: Option<String>) -> std::result::Result<(), JsValue> {
        check_js()?;
        self.inner.agent.clear_tool_cache(name.as_deref());
        Ok(())
    }

    /// Forgets the cached results of the tool `name` for one argument object
    /// (written in any key order), for every user and conversation; resolves
    /// how many it forgot.
    #[wasm_bindgen(js_name = forgetToolResult)]
    pub fn forget_tool_result(&self, name: String, arguments: JsValue) -> std::result::Result<u32, JsValue> {
        check_js()?;
        let arguments: serde_json::Value =
            from_js(arguments, "tool arguments").map_err(|e| error_to_js(&e))?;
        Ok(self.inner.agent.forget_tool_result(&name, &arguments) as u32)
    }

    /// Replaces a conversation's working state (an object, or `null` to clear it).
    #[wasm_bindgen(js_name = setWorkingState, unchecked_return_type = "Promise<void>")]
    pub fn set_working_state(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Record<string, unknown> | null")] state: JsValue,
    ) -> Promise {
        self.call_js_with_id(conversation_id, "conversationId", |inner, id| {
            set_working_state(inner, id, state)
        })
    }

    /// A conversation's working state, or `null`.
    #[wasm_bindgen(js_name = workingState, unchecked_return_type = "Promise<Record<string, unknown> | null>")]
    pub fn working_state(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
    ) -> Promise {
        self.call_js_with_id(conversation_id, "conversationId", working_state)
    }

    /// Deletes every conversation (messages, tool-call records, paused turns,
    /// usage totals) and every headless run in one transaction; books stay.
    /// `ConversationBusyError` while this instance runs a turn.
    #[wasm_bindgen(js_name = deleteAllConversations, unchecked_return_type = "Promise<void>")]
    pub fn delete_all_conversations(&self) -> Promise {
        self.call_js(delete_all_conversations)
    }

    /// A conversation's usage over all its turns: `{ conversationId, inputTokens, outputTokens, cachedInputTokens, costUsd?, estimated?, turns }`.
    #[wasm_bindgen(unchecked_return_type = "Promise<UsageTotals>")]
    pub fn usage(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
    ) -> Promise {
        self.call_with_id(conversation_id, "conversationId", |inner, id| async move {
            inner.agent.usage(&id).await
        })
    }

    /// The system message the conversation's next model call begins with (before the passages
    /// and mentions its turn adds): what an in-browser model can read ahead while the reader reads
    /// (`LocalModel.prefill`). `NotFoundError` for an unknown conversation.
    #[wasm_bindgen(js_name = systemPrompt, unchecked_return_type = "Promise<string>")]
    pub fn system_prompt(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
    ) -> Promise {
        self.call_with_id(conversation_id, "conversationId", |inner, id| async move {
            inner.agent.system_prompt(&id).await
        })
    }

    /// Checks the configuration against the registered tools without calling any model.
    #[wasm_bindgen(js_name = validateConfig, unchecked_return_type = "ConfigReport")]
    pub fn validate_config(&self) -> std::result::Result<JsValue, JsValue> {
        check_js()?;
        let config = self.inner.agent.config();
        let mut report = validate_config(&self.inner.provider, config, self.inner.agent.tools());
        if self.inner.agent.library().is_some() {
            report.warnings.extend(book_context_warning(config));
        }
        to_js(&report).map_err(|e| error_to_js(&e))
    }

    /// Closes the database; later calls on this instance reject.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        let inner = self.inner.clone();
        promise(async move {
            inner.close().await;
            Ok(())
        })
    }
}

split_off!(
    maintenance,
    /// `deleteConversation`'s work.
    fn delete_conversation(inner: Rc<Inner>, id: String) -> Result<JsValue> {
        to_js(&inner.stored.archive().delete_conversation(&id).await?)
    }
);

split_off!(
    maintenance,
    /// `deleteAllConversations`' work.
    fn delete_all_conversations(inner: Rc<Inner>) -> Result<JsValue> {
        to_js(&inner.archived_agent().delete_all_conversations().await?)
    }
);

split_off!(
    maintenance,
    /// `setWorkingState`'s work.
    fn set_working_state(inner: Rc<Inner>, id: String, state: JsValue) -> Result<JsValue> {
        let state: serde_json::Value = from_js(state, "working state")?;
        inner.agent.set_working_state(&id, state.clone()).await?;
        // Told to this instance's listeners and the other tabs', as a tool's change is.
        let event = Event {
            conversation_id: id,
            turn_id: String::new(),
            kind: EventKind::WorkingState {
                state: Some(state).filter(|s| !s.is_null()),
            },
        };
        inner.sink(None).emit_with(|| event);
        Ok(JsValue::UNDEFINED)
    }
);

split_off!(
    maintenance,
    /// `workingState`'s work.
    fn working_state(inner: Rc<Inner>, id: String) -> Result<JsValue> {
        to_js(&inner.agent.working_state(&id).await?)
    }
);
