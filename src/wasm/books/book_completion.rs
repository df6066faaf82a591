//! A stored book's vectors and index, computed behind the reader after
//! `addBook` resolved (or when an instance opens on a book left unfinished),
//! with progress as `ingestProgress` events and a failure as `ingestFailed`.

use std::rc::Rc;

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::JsValue;

use super::books_state::{BooksInner, Emit};
use crate::error::Error;
use crate::retrieval::library::IngestProgress;
use crate::runtime::cancel::CancelToken;
use crate::wasm::js::to_js;

/// A progress report as JS (from the worker, or the library's records) to
/// `on_progress` (the `addBook` option, if any) and to the page's listeners
/// as an `ingestProgress` event.
pub fn progress_to(on_progress: Option<Function>, emit: Emit) -> Rc<dyn Fn(JsValue)> {
    Rc::new(move |value: JsValue| {
        if let Some(callback) = &on_progress {
            let _ = callback.call1(&JsValue::NULL, &value);
        }
        let _ = Reflect::set(&value, &"type".into(), &"ingestProgress".into());
        emit(&value);
    })
}

/// Runs [`Ingestion::complete`](crate::wasm::books::worker::ingest_worker::Ingestion::complete) for book `id` on its own, its progress
/// reported as [`progress_to`] says: a failure other than an abort becomes
/// an `ingestFailed` event `{ bookId, name, message }` (the book stays,
/// searched lexically; the next open tries again).
pub fn spawn_completion(
    inner: &Rc<BooksInner>,
    id: String,
    on_progress: Option<Function>,
    cancel: CancelToken,
) {
    let report = progress_to(on_progress, inner.emit.clone());
    let progress: Rc<dyn Fn(IngestProgress)> = Rc::new(move |progress: IngestProgress| {
        if let Ok(value) = to_js(&progress) {
            report(value);
        }
    });
    let inner = inner.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = inner
            .ingestion
            .complete(&inner.library, &id, progress, &cancel)
            .await;
        match outcome {
            Ok(()) | Err(Error::Aborted) => {}
            Err(error) => (inner.emit)(&failed_event(&id, &error)),
        }
    });
}

fn failed_event(id: &str, error: &Error) -> JsValue {
    let event = Object::new();
    for (key, value) in [("type", "ingestFailed"), ("bookId", id), ("name", error.name())] {
        let _ = Reflect::set(&event, &key.into(), &value.into());
    }
    let _ = Reflect::set(&event, &"message".into(), &error.to_string().into());
    event.into()
}
