//! The listeners of one `Lectern` instance: `onEvent` and every `subscribe`r.

use std::cell::{Cell, RefCell};

use js_sys::{Function, Object};
use wasm_bindgen::{JsCast, JsValue};

/// Functions that get every event an instance emits, in subscription order.
#[derive(Default)]
pub struct Listeners {
    items: RefCell<Vec<(u32, Function)>>,
    next_id: Cell<u32>,
}

impl Listeners {
    /// Listeners starting with `on_event`, if given.
    pub fn with(on_event: Option<Function>) -> Self {
        let listeners = Listeners::default();
        if let Some(callback) = on_event {
            listeners.add(callback);
        }
        listeners
    }

    /// Adds a listener; its id for [`Listeners::remove`].
    pub fn add(&self, listener: Function) -> u32 {
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1));
        self.items.borrow_mut().push((id, listener));
        id
    }

    /// Removes the listener with this id (nothing if it is gone already).
    pub fn remove(&self, id: u32) {
        self.items.borrow_mut().retain(|(known, _)| *known != id);
    }

    /// Whether nobody listens.
    pub fn is_empty(&self) -> bool {
        self.items.borrow().is_empty()
    }

    /// Hands `event`, frozen ([`deep_freeze`]), to every listener. One that
    /// throws breaks neither the others nor the turn; one may (un)subscribe
    /// from inside its call.
    pub fn emit(&self, event: &JsValue) {
        deep_freeze(event);
        let current: Vec<Function> = self.items.borrow().iter().map(|(_, f)| f.clone()).collect();
        for listener in current {
            let _ = listener.call1(&JsValue::NULL, event);
        }
    }
}

/// Freezes `value` and every object and array in it, so that one listener
/// cannot change what the next one sees. Events are plain data (parsed
/// JSON): nothing in them refuses to be frozen.
fn deep_freeze(value: &JsValue) {
    let Some(object) = value.dyn_ref::<Object>() else {
        return;
    };
    if Object::is_frozen(object) {
        return;
    }
    Object::freeze(object);
    for item in Object::values(object).iter() {
        deep_freeze(&item);
    }
}
