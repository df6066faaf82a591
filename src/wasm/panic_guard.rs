//! A panic must not kill the page silently.
//!
//! The package is built with `panic = "abort"`: a panic traps the module, the
//! call that panicked never settles, and later calls would run on whatever
//! state the trap left behind. The hook installed by the first `Lectern.open`
//! writes the panic to `console.error`, marks Lectern broken, and rejects the
//! calls in flight; from then on every entry (promise methods, `stream`, the
//! sync methods, `Lectern.open`) refuses at once with an `InternalError`.

use std::cell::RefCell;
use std::future::Future;
use std::panic::PanicHookInfo;
use std::pin::Pin;
use std::sync::{Once, OnceLock};

use js_sys::{Function, Promise};
use wasm_bindgen::JsValue;

use super::js::error_to_js;
use crate::error::{Error, Result};

/// The first panic's message, once there was one.
static BROKEN: OnceLock<String> = OnceLock::new();

/// What ends a call in flight when Lectern breaks.
type Stop = Box<dyn FnOnce(&Error)>;

#[derive(Default)]
struct InFlight {
    next_id: u64,
    stops: Vec<(u64, Stop)>,
}

thread_local! {
    static IN_FLIGHT: RefCell<InFlight> = RefCell::new(InFlight::default());
}

/// Installs the panic hook (once; later calls do nothing). The hook runs
/// before any hook that was set earlier, which still runs.
pub fn install() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if is_lecterns(info) {
                on_panic(describe(info));
            }
            previous(info);
        }));
    });
}

/// `Ok` while Lectern works; after a panic, the `InternalError` every call gets.
pub fn check() -> Result<()> {
    match BROKEN.get() {
        Some(message) => Err(Error::Internal {
            panic: message.clone(),
        }),
        None => Ok(()),
    }
}

/// [`check`] as a JS `Error`, for the sync methods.
pub fn check_js() -> std::result::Result<(), JsValue> {
    check().map_err(|e| error_to_js(&e))
}

/// Runs `work` as a promise that settles with its outcome — or rejects with
/// an `InternalError` at once if Lectern is broken, or when it breaks while
/// `work` is in flight.
pub fn guarded_promise<F>(work: F) -> Promise
where
    F: Future<Output = std::result::Result<JsValue, JsValue>> + 'static,
{
    guarded_boxed(Box::pin(work))
}

/// [`guarded_promise`] for a boxed future: one copy of the settling code for
/// every method's future, not one per future type (the page's module −7 KB gzip).
fn guarded_boxed(work: Pin<Box<dyn Future<Output = std::result::Result<JsValue, JsValue>>>>) -> Promise {
    if let Err(error) = check() {
        return Promise::reject(&error_to_js(&error));
    }
    let mut settle: Option<(Function, Function)> = None;
    let promise = Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
    // `Promise::new` runs its executor before it returns.
    let Some((resolve, reject)) = settle else {
        return promise;
    };
    let stop_reject = reject.clone();
    let id = track(Box::new(move |error| {
        let _ = stop_reject.call1(&JsValue::NULL, &error_to_js(error));
    }));
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = work.await;
        untrack(id);
        let _ = match outcome {
            Ok(value) => resolve.call1(&JsValue::NULL, &value),
            Err(error) => reject.call1(&JsValue::NULL, &error),
        };
    });
    promise
}

/// Keeps `stop` until [`untrack`]; a panic before then calls it. Returns its id.
pub fn track(stop: Stop) -> u64 {
    IN_FLIGHT.with(|in_flight| {
        let mut in_flight = in_flight.borrow_mut();
        in_flight.next_id += 1;
        let id = in_flight.next_id;
        in_flight.stops.push((id, stop));
        id
    })
}

/// Forgets the stop of a call that settled.
pub fn untrack(id: u64) {
    IN_FLIGHT.with(|in_flight| in_flight.borrow_mut().stops.retain(|(i, _)| *i != id));
}

/// Whether a panic breaks Lectern. In this crate's own tests (feature
/// `test-support`) a failed assertion of a test file is the test's, not
/// Lectern's: it must not fail every later test of the same wasm instance.
fn is_lecterns(info: &PanicHookInfo<'_>) -> bool {
    #[cfg(feature = "test-support")]
    if info.location().is_some_and(|at| at.file().starts_with("tests/")) {
        return false;
    }
    let _ = info;
    true
}

/// The panic's message and where it happened (where that is known: the
/// release build has no locations, `-Zlocation-detail=none`, and gives line 0).
fn describe(info: &PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned());
    match info.location() {
        Some(at) if at.line() > 0 => format!("{message} (at {}:{})", at.file(), at.line()),
        _ => message,
    }
}

fn on_panic(message: String) {
    let _ = BROKEN.set(message.clone());
    let error = Error::Internal { panic: message };
    web_sys::console::error_1(&JsValue::from_str(&format!(
        "{error}. Every later call is refused with an InternalError; reload the page."
    )));
    // The panic may have struck while the registry was borrowed: then its
    // calls cannot be reached, and they stay pending.
    let stops = IN_FLIGHT.with(|in_flight| {
        in_flight
            .try_borrow_mut()
            .map(|mut in_flight| std::mem::take(&mut in_flight.stops))
            .unwrap_or_default()
    });
    for (_, stop) in stops {
        stop(&error);
    }
}
