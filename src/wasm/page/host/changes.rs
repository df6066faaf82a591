//! Changes shared between the tabs of one database (`changes.js`): this
//! instance's `workingState`, `finish` and `runFinished` events go to the
//! other instances on the same `dbName`, whose listeners get them with
//! `remote: true`.

use std::rc::Rc;

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::listeners::Listeners;
use crate::events::EventKind;

/// Whether other tabs hear events of this kind: those that say what changed in the store.
pub fn is_shared(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::WorkingState { .. } | EventKind::Finish { .. } | EventKind::RunFinished { .. }
    )
}

#[wasm_bindgen(module = "/src/wasm/page/host/changes.js")]
extern "C" {
    #[wasm_bindgen(js_name = openChanges)]
    fn open_changes(db_name: &str, deliver: &Function) -> JsValue;
    #[wasm_bindgen(js_name = postChange)]
    fn post_change(channel: &JsValue, event: &JsValue);
    #[wasm_bindgen(js_name = closeChanges)]
    fn close_changes(channel: &JsValue);
}

/// The channel of one database, and what hands the other tabs' changes to the listeners.
pub struct SharedChanges {
    channel: JsValue,
    _deliver: Closure<dyn Fn(JsValue)>,
}

impl SharedChanges {
    /// Opens the channel of `db_name`; the changes other tabs post reach `listeners`.
    pub fn open(db_name: &str, listeners: Rc<Listeners>) -> Self {
        let deliver = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| listeners.emit(&event));
        let channel = open_changes(db_name, deliver.as_ref().unchecked_ref());
        SharedChanges {
            channel,
            _deliver: deliver,
        }
    }

    /// Tells the other tabs of `event`.
    pub fn post(&self, event: &JsValue) {
        post_change(&self.channel, event);
    }

    /// Stops hearing and telling (`close()`).
    pub fn close(&self) {
        close_changes(&self.channel);
    }
}
