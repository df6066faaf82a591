//! `mergeSyncedConversation(conversation, messages)`: a conversation as the
//! user's synced document has it, stored here in the document's order
//! (`lectern/sync`'s `followSync` calls it for each remote change).

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use std::rc::Rc;

use crate::domain::{Conversation, Message};
use crate::error::Result;
use crate::wasm::js::from_js;
use crate::wasm::page::lectern::{Inner, Lectern};
use crate::wasm::page::split_off::split_off;

#[wasm_bindgen]
impl Lectern {
    /// Stores a conversation as the synced document has it: its record, and
    /// its messages in the document's order (the same on every device),
    /// followed by any stored here that the document lacks; in one
    /// transaction. Resolves with whether anything changed. A message of
    /// another conversation, or an id given twice or already another
    /// conversation's, is a `StorageError` and nothing is written.
    #[wasm_bindgen(js_name = mergeSyncedConversation, unchecked_return_type = "Promise<boolean>")]
    pub fn merge_synced_conversation(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Conversation")] conversation: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    ) -> Promise {
        self.call_js(|inner| merge_synced(inner, conversation, messages))
    }
}

split_off!(
    portability,
    /// `mergeSyncedConversation`'s work.
    fn merge_synced(inner: Rc<Inner>, conversation: JsValue, messages: JsValue) -> Result<JsValue> {
        let conversation: Conversation = from_js(conversation, "mergeSyncedConversation conversation")?;
        let messages: Vec<Message> = from_js(messages, "mergeSyncedConversation messages")?;
        let changed = inner.agent.merge_synced(conversation, messages).await?;
        Ok(JsValue::from_bool(changed))
    }
);
