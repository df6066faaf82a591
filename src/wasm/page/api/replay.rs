//! `lectern.replay(turnId)` and `lectern.recordedTurns(conversationId)`:
//! the events a turn recorded (`recordEvents: true`), yielded as `stream()` did.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use crate::error::Result;
use crate::wasm::js::{error_to_js, string_arg, to_js};
use crate::wasm::page::event_stream::{async_iterable, EventQueue};
use crate::wasm::page::lectern::{error_event, Inner, Lectern};
use crate::wasm::page::split_off::split_off;
use crate::wasm::panic_guard::check_js;

#[wasm_bindgen]
impl Lectern {
    /// A past turn's recorded events as an async iterable, in the order they
    /// were emitted (a paused turn's resolve included); nothing when the turn
    /// recorded none. A failure to read them ends it with an `error` event.
    #[wasm_bindgen(unchecked_return_type = "AsyncIterable<LecternEvent>")]
    pub fn replay(
        &self,
        #[wasm_bindgen(js_name = "turnId", unchecked_param_type = "string")] turn_id: JsValue,
    ) -> std::result::Result<JsValue, JsValue> {
        check_js()?;
        let id = string_arg(&turn_id, "turnId").map_err(|e| error_to_js(&e))?;
        let inner = self.inner.clone();
        let queue = Rc::new(RefCell::new(EventQueue::default()));
        let iterable = async_iterable(queue.clone(), || {});
        wasm_bindgen_futures::spawn_local(async move {
            let events = match inner.ensure_open() {
                Ok(()) => recorded_events(inner, id).await,
                Err(error) => Err(error),
            };
            let mut queue = queue.borrow_mut();
            match events {
                Ok(events) => events.into_iter().for_each(|event| queue.push(event)),
                Err(error) => queue.push(error_event(String::new(), &error)),
            }
            queue.close();
        });
        Ok(iterable)
    }

    /// The ids of a conversation's turns with recorded events, oldest first.
    #[wasm_bindgen(js_name = recordedTurns, unchecked_return_type = "Promise<string[]>")]
    pub fn recorded_turns(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
    ) -> Promise {
        self.call_js_with_id(conversation_id, "conversationId", recorded_turns)
    }
}

split_off!(
    history,
    /// `replay`'s work: the turn's events for JS.
    fn recorded_events(inner: Rc<Inner>, id: String) -> Result<Vec<JsValue>> {
        inner
            .archived_agent()
            .replay(&id)
            .await?
            .iter()
            .map(to_js)
            .collect()
    }
);

split_off!(
    history,
    /// `recordedTurns`' work.
    fn recorded_turns(inner: Rc<Inner>, id: String) -> Result<JsValue> {
        to_js(&inner.archived_agent().recorded_turns(&id).await?)
    }
);
