//! The browser clock: `Date.now()` and `setTimeout`, in a window or a worker.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures::future::LocalBoxFuture;
use js_sys::{Function, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::runtime::time::Clock;

/// The longest delay `setTimeout` takes (2^31 - 1 ms, about 24.8 days); a
/// longer one fires at once, so longer sleeps wait in steps of at most this.
const MAX_TIMER_MS: u64 = 2_147_483_647;

/// Real time in the browser.
#[derive(Debug, Clone, Copy, Default)]
pub struct BrowserClock;

impl Clock for BrowserClock {
    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    /// Waits `ms`, in `setTimeout` steps of at most [`MAX_TIMER_MS`]; dropping
    /// the sleep clears its timer.
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(async move {
            let mut left = ms;
            loop {
                let step = left.min(MAX_TIMER_MS);
                Timer::start(step).await;
                left -= step;
                if left == 0 {
                    break;
                }
            }
        })
    }
}

/// One `setTimeout`, cleared if dropped before it fires.
struct Timer {
    /// The timer's id, while it may still fire.
    id: Option<JsValue>,
    state: Rc<TimerState>,
    /// Called by the timer; kept alive until it fired or was cleared.
    callback: Option<Closure<dyn FnMut()>>,
}

#[derive(Default)]
struct TimerState {
    fired: Cell<bool>,
    waker: RefCell<Option<Waker>>,
}

impl Timer {
    /// Sets a timer of `ms` (at most [`MAX_TIMER_MS`]). Without `setTimeout` it has fired already.
    fn start(ms: u64) -> Timer {
        let state = Rc::new(TimerState::default());
        let global = js_sys::global();
        let set_timeout = global_function(&global, "setTimeout");
        let Some(set_timeout) = set_timeout else {
            state.fired.set(true);
            return Timer {
                id: None,
                state,
                callback: None,
            };
        };
        let fired = state.clone();
        let callback = Closure::<dyn FnMut()>::new(move || {
            fired.fired.set(true);
            if let Some(waker) = fired.waker.borrow_mut().take() {
                waker.wake();
            }
        });
        let delay = JsValue::from_f64(ms.min(MAX_TIMER_MS) as f64);
        let id = set_timeout.call2(&global, callback.as_ref(), &delay).ok();
        if id.is_none() {
            state.fired.set(true);
        }
        Timer {
            id,
            state,
            callback: Some(callback),
        }
    }
}

impl Future for Timer {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.state.fired.get() {
            return Poll::Ready(());
        }
        *self.state.waker.borrow_mut() = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if self.state.fired.get() {
            return;
        }
        let global = js_sys::global();
        let cleared = match (self.id.take(), global_function(&global, "clearTimeout")) {
            (Some(id), Some(clear_timeout)) => clear_timeout.call1(&global, &id).is_ok(),
            _ => false,
        };
        if !cleared {
            // It may still fire: its callback must outlive it.
            if let Some(callback) = self.callback.take() {
                callback.forget();
            }
        }
    }
}

fn global_function(global: &js_sys::Object, name: &str) -> Option<Function> {
    Reflect::get(global, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
}
