//! `lectern.retry(conversationId, options?)`: a failed turn again, from its stored user message.

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use crate::wasm::js::string_arg;
use crate::wasm::page::lectern::{Lectern, SendOptionsInput};
use crate::wasm::page::send_options::read_send_options;

#[wasm_bindgen]
impl Lectern {
    /// Runs the turn again from the conversation's trailing user message (the
    /// one a failed turn left unanswered) without storing it a second time;
    /// resolves like `send`. `ConfigError` if the last message is not the
    /// user's, `ApprovalPending` if a turn waits for approval.
    #[wasm_bindgen(unchecked_return_type = "Promise<SendOutcome>")]
    pub fn retry(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
        options: Option<SendOptionsInput>,
    ) -> Promise {
        self.call_turn(|inner| async move {
            let id = string_arg(&conversation_id, "conversationId")?;
            let options = read_send_options(options.map(JsValue::from))?;
            inner.agent.retry(&id, &options, &inner.sink(None)).await
        })
    }
}
