//! `embedder: { kind: 'minilm' }` in the ingestion module: its two files
//! fetched (or read from the Cache API) with progress, the model built once
//! per module and shared by every book and query after it.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::{FutureExt, LocalBoxFuture, Shared};
use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::error::{Error, Result};
use crate::retrieval::config::MiniLmSettings;
use crate::retrieval::embed::minilm::embedder::MiniLmEmbedder;
use crate::wasm::js::{describe_js, JsBytes};

#[wasm_bindgen(module = "/src/wasm/books/model_files.js")]
extern "C" {
    /// The bytes at `url`, from the cache or fetched (and cached), with progress.
    #[wasm_bindgen(js_name = fetchModelFile)]
    fn fetch_model_file(url: &str, use_cache: bool, on_bytes: &Function) -> Promise;
}

/// Bytes of the model's files done and in all (0 while unknown).
pub type OnBytes = Rc<dyn Fn(u64, u64)>;

/// `report(done, total)`, a JS function if there is one, as [`OnBytes`].
pub fn on_bytes_to(report: Option<Function>) -> OnBytes {
    Rc::new(move |done, total| {
        if let Some(report) = &report {
            let _ = report.call2(&JsValue::NULL, &(done as f64).into(), &(total as f64).into());
        }
    })
}

type Loading = Shared<LocalBoxFuture<'static, Result<Rc<MiniLmEmbedder>>>>;

thread_local! {
    /// The model being loaded or loaded, and the settings it is for.
    static MODEL: RefCell<Option<(MiniLmSettings, Loading)>> = const { RefCell::new(None) };
}

/// The MiniLM embedder of `settings`: the one already loaded (or loading)
/// for the same files, else loaded now, replacing it. A failed load is
/// forgotten, so the next call tries again.
pub async fn minilm(settings: &MiniLmSettings, on_bytes: OnBytes) -> Result<Rc<MiniLmEmbedder>> {
    let loading = MODEL.with_borrow_mut(|slot| match slot {
        Some((loaded, loading)) if loaded == settings => loading.clone(),
        _ => {
            let loading = load(settings.clone(), on_bytes).boxed_local().shared();
            *slot = Some((settings.clone(), loading.clone()));
            loading
        }
    });
    let result = loading.await;
    if result.is_err() {
        MODEL.with_borrow_mut(|slot| {
            if slot.as_ref().is_some_and(|(loaded, _)| loaded == settings) {
                *slot = None;
            }
        });
    }
    result
}

async fn load(settings: MiniLmSettings, on_bytes: OnBytes) -> Result<Rc<MiniLmEmbedder>> {
    let vocab = fetch(&settings.vocab_url, settings.cache, None).await?.to_vec();
    let vocab = String::from_utf8(vocab)
        .map_err(|_| Error::config(format!("{} is not UTF-8 text", settings.vocab_url)))?;
    // The model stays in its JS buffer; its tensors are copied in one by one
    // (wasm memory grows by the model, 67 MB, not by the file on top of it).
    let model = fetch(&settings.model_url, settings.cache, Some(on_bytes)).await?;
    Ok(Rc::new(MiniLmEmbedder::from_file(&vocab, &JsBytes::new(model))?))
}

/// The bytes at `url`, in a JS buffer; progress to `on_bytes`, if given.
async fn fetch(url: &str, use_cache: bool, on_bytes: Option<OnBytes>) -> Result<Uint8Array> {
    let callback = Closure::<dyn Fn(f64, f64)>::new(move |done: f64, total: f64| {
        if let Some(report) = &on_bytes {
            report(done as u64, total as u64);
        }
    });
    let promise = fetch_model_file(url, use_cache, callback.as_ref().unchecked_ref());
    let bytes = JsFuture::from(promise)
        .await
        .map_err(|error| fetch_error(url, &error))?;
    bytes
        .dyn_into()
        .map_err(|_| Error::protocol("the model file loader returned no bytes"))
}

/// An HTTP error status as `Api`, anything else as `Connection`.
fn fetch_error(url: &str, error: &JsValue) -> Error {
    let status = Reflect::get(error, &"status".into())
        .ok()
        .and_then(|s| s.as_f64());
    match status {
        Some(status) => Error::Api {
            status: status as u16,
            body: format!("the model file {url} could not be fetched"),
        },
        None => Error::connection(describe_js(error)),
    }
}
