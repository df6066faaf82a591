//! `lectern.askOnce(text, { bookId?, ...send's options })`: one turn that stores nothing.

use std::rc::Rc;

use js_sys::{Object, Promise};
use wasm_bindgen::prelude::*;

use crate::agent::{TurnError, TurnResult};
use crate::error::{Error, Result};
use crate::wasm::js::{string_arg, take_key};
use crate::wasm::page::lectern::{Inner, Lectern};
use crate::wasm::page::send_options::read_send_options;
use crate::wasm::page::split_off::split_off;

#[wasm_bindgen]
extern "C" {
    /// The optional options of `askOnce`.
    #[wasm_bindgen(typescript_type = "AskOnceOptions")]
    pub type AskOnceOptionsInput;
}

#[wasm_bindgen]
impl Lectern {
    /// Runs one turn for `text` with the agent loop, tools and limits, and
    /// stores nothing (no conversation, message, tool-call record or usage);
    /// resolves like `send`, with the turn's `messages`. With `bookId`, a
    /// book conversation's turn. A call that would ask for approval is
    /// refused (nobody could answer it) unless `approvals.autoApprove`.
    #[wasm_bindgen(js_name = askOnce, unchecked_return_type = "Promise<OneShotOutcome>")]
    pub fn ask_once(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
        options: Option<AskOnceOptionsInput>,
    ) -> Promise {
        let options = options.map(JsValue::from);
        self.call_turn(|inner| ask_once(inner, text, options))
    }
}

split_off!(
    one_shot,
    /// `askOnce`'s work (with the in-memory store the turn runs on).
    fn ask_once(
        inner: Rc<Inner>,
        text: JsValue,
        options: Option<JsValue>,
    ) -> std::result::Result<TurnResult, TurnError> {
        let text = string_arg(&text, "text")?;
        let (book_id, rest) = split_book_id(options)?;
        let options = read_send_options(rest)?;
        inner
            .agent
            .ask_once(&text, book_id, &options, &inner.sink(None))
            .await
    }
);

/// Takes `bookId` out of a copy of `askOnce`'s options; the rest are `send`'s.
fn split_book_id(options: Option<JsValue>) -> Result<(Option<String>, Option<JsValue>)> {
    let Some(options) = options.filter(|o| !o.is_undefined() && !o.is_null()) else {
        return Ok((None, None));
    };
    if !options.is_object() {
        return Err(Error::config("askOnce options must be an object"));
    }
    let copy = Object::assign(&Object::new(), options.unchecked_ref());
    let book_id = match take_key(&copy, "bookId") {
        id if id.is_undefined() => None,
        id => Some(string_arg(&id, "askOnce options: bookId")?),
    };
    Ok((book_id, Some(copy.into())))
}
