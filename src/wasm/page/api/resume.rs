//! Turns a closed tab cut off: `lectern.interruptedTurns(conversationId?)`
//! lists them, `lectern.resumeTurn(turnId, options?)` goes on with one.

use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use crate::agent::{TurnError, TurnResult};
use crate::wasm::js::string_arg;
use crate::wasm::page::lectern::{Inner, Lectern};
use crate::wasm::page::send_options::signal_only;
use crate::wasm::page::split_off::split_off;

#[wasm_bindgen]
extern "C" {
    /// The options of `resumeTurn`.
    #[wasm_bindgen(typescript_type = "ResumeOptions")]
    pub type ResumeOptionsInput;
}

#[wasm_bindgen]
impl Lectern {
    /// Turns a closed tab or a reload cut off (user message stored, no
    /// answer), of one conversation or of all, oldest first. A turn running
    /// now, in this tab or another on the same database, is not listed.
    #[wasm_bindgen(js_name = interruptedTurns, unchecked_return_type = "Promise<InterruptedTurn[]>")]
    pub fn interrupted_turns(
        &self,
        #[wasm_bindgen(js_name = "conversationId")] conversation_id: Option<String>,
    ) -> Promise {
        self.call(|inner| async move { inner.agent.interrupted_turns(conversation_id.as_deref()).await })
    }

    /// Goes on with an interrupted turn from its last stored step; resolves
    /// like `send`. Completed tool calls are never run again; calls that were
    /// running are answered "Interrupted". `NotFoundError` if the turn is not
    /// open, `ConversationBusyError` if a turn runs on its conversation now.
    #[wasm_bindgen(js_name = resumeTurn, unchecked_return_type = "Promise<SendOutcome>")]
    pub fn resume_turn(
        &self,
        #[wasm_bindgen(js_name = "turnId", unchecked_param_type = "string")] turn_id: JsValue,
        options: Option<ResumeOptionsInput>,
    ) -> Promise {
        let options = options.map(JsValue::from);
        self.call_turn(|inner| resume_turn(inner, turn_id, options))
    }
}

split_off!(
    history,
    /// `resumeTurn`'s work.
    fn resume_turn(
        inner: Rc<Inner>,
        turn_id: JsValue,
        options: Option<JsValue>,
    ) -> std::result::Result<TurnResult, TurnError> {
        let turn_id = string_arg(&turn_id, "turnId")?;
        let options = signal_only(options, "resumeTurn")?;
        inner
            .agent
            .resume_turn(&turn_id, &options, &inner.sink(None))
            .await
    }
);
