//! `lectern.stream(...)`: a turn's events as a JS async iterable.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = "export function asyncIterable(next, stop) {
  return { next, return: stop, [Symbol.asyncIterator]() { return this; } };
}")]
extern "C" {
    /// `{ next, return, [Symbol.asyncIterator]() { return this } }`, without `eval` (CSP-safe).
    #[wasm_bindgen(js_name = asyncIterable)]
    fn make_async_iterable(next: &Function, stop: &Function) -> JsValue;
}

/// Events waiting to be read, and a reader waiting for events.
#[derive(Default)]
pub struct EventQueue {
    items: VecDeque<JsValue>,
    done: bool,
    waiting: Option<Function>,
}

fn step(value: &JsValue, done: bool) -> JsValue {
    let result = Object::new();
    let _ = Reflect::set(&result, &"value".into(), value);
    let _ = Reflect::set(&result, &"done".into(), &JsValue::from_bool(done));
    result.into()
}

impl EventQueue {
    /// Delivers an event to a waiting reader, or keeps it for the next read.
    pub fn push(&mut self, event: JsValue) {
        if self.done {
            return;
        }
        match self.waiting.take() {
            Some(resolve) => {
                let _ = resolve.call1(&JsValue::NULL, &step(&event, false));
            }
            None => self.items.push_back(event),
        }
    }

    /// Ends the stream once the kept events are read.
    pub fn close(&mut self) {
        self.done = true;
        if let Some(resolve) = self.waiting.take() {
            let _ = resolve.call1(&JsValue::NULL, &step(&JsValue::UNDEFINED, true));
        }
    }

    fn next(&mut self) -> Promise {
        if let Some(event) = self.items.pop_front() {
            return Promise::resolve(&step(&event, false));
        }
        if self.done {
            return Promise::resolve(&step(&JsValue::UNDEFINED, true));
        }
        let mut waiting = None;
        let promise = Promise::new(&mut |resolve, _reject| waiting = Some(resolve));
        self.waiting = waiting;
        promise
    }
}

/// An async iterable over `queue`; `return()` (a `break` out of `for await`) calls `on_return`.
pub fn async_iterable(queue: Rc<RefCell<EventQueue>>, on_return: impl Fn() + 'static) -> JsValue {
    let reader = queue.clone();
    let next = Closure::<dyn FnMut() -> Promise>::new(move || reader.borrow_mut().next());
    let stop = Closure::<dyn FnMut() -> Promise>::new(move || {
        on_return();
        let mut queue = queue.borrow_mut();
        queue.items.clear();
        queue.close();
        Promise::resolve(&step(&JsValue::UNDEFINED, true))
    });
    make_async_iterable(
        next.into_js_value().unchecked_ref(),
        stop.into_js_value().unchecked_ref(),
    )
}
