//! `exportConversation(id, { format })` and `importConversation(data)`: a
//! conversation out as a Lectern bundle or an OpenAI `messages` array, and in
//! again under new ids.

use js_sys::Promise;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use std::rc::Rc;

use crate::agent::ExportOptions;
use crate::error::{Error, Result};
use crate::wasm::js::{from_js, to_js};
use crate::wasm::page::lectern::{Inner, Lectern};
use crate::wasm::page::split_off::split_off;

#[wasm_bindgen]
extern "C" {
    /// The options of `exportConversation`.
    #[wasm_bindgen(typescript_type = "ExportOptions")]
    pub type ExportOptionsInput;
}

#[wasm_bindgen]
impl Lectern {
    /// A conversation as `{ format: 'lectern', version: 1, conversation, messages, toolCalls,
    /// pendingTurns, usage, grants }` (the default), or with `{ format: 'openai' }` as the
    /// chat-completions `messages` array. `NotFoundError` if it does not exist.
    #[wasm_bindgen(js_name = exportConversation, unchecked_return_type = "Promise<ConversationExport>")]
    pub fn export_conversation(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
        options: Option<ExportOptionsInput>,
    ) -> Promise {
        let options = options.map(JsValue::from);
        self.call_js_with_id(conversation_id, "conversationId", |inner, id| {
            export_bundle(inner, id, options)
        })
    }

    /// Imports a conversation from a Lectern bundle, an OpenAI `messages` array or
    /// `{ format: 'openai', messages, title? }`, under new ids; resolves with the new
    /// conversation. Everything is checked first: `ImportError` (with the `path` of
    /// the fault) and nothing stored if any of it is invalid.
    #[wasm_bindgen(js_name = importConversation, unchecked_return_type = "Promise<Conversation>")]
    pub fn import_conversation(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ConversationExport | ImportInput")] data: JsValue,
    ) -> Promise {
        self.call_js(|inner| import_bundle(inner, data))
    }
}

split_off!(
    portability,
    /// `exportConversation`'s work.
    fn export_bundle(inner: Rc<Inner>, id: String, options: Option<JsValue>) -> Result<JsValue> {
        let options: ExportOptions = match options {
            Some(options) => from_js(options, "exportConversation options")?,
            None => ExportOptions::default(),
        };
        to_js(&inner.agent.export_conversation(&id, options.format).await?)
    }
);

split_off!(
    portability,
    /// `importConversation`'s work.
    fn import_bundle(inner: Rc<Inner>, data: JsValue) -> Result<JsValue> {
        let data: Value = from_js(data, "import")
            .map_err(|_| Error::import("", "expected a Lectern export or OpenAI messages (plain JSON)"))?;
        to_js(&inner.archived_agent().import_conversation(data).await?)
    }
);
