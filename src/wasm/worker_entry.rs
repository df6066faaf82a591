//! The ingestion module's entries (feature `ingest`), run by Lectern's worker
//! (`lectern_worker.js`) or, without one, in the page: one job in (the book,
//! the embedder's settings, the chunking), the prepared book out as
//! transferable buffers; and an index built from stored vectors. Not part of
//! the public API.

use std::rc::Rc;

use js_sys::{Float32Array, Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use super::abort_signal::link_signal;
use super::book_input::read_book_input;
use super::browser_pace::BrowserPace;
use super::embedders::{self, embedder_config, loaded_embedder};
use super::js::{describe_js, error_to_js, from_js, to_js};
use super::minilm_files::OnBytes;
use super::panic_guard::{self, guarded_promise};
use crate::cancel::CancelToken;
use crate::error::{Error, Result};
use crate::retrieval::chunk::ChunkSettings;
use crate::retrieval::index::{build_index, IndexSettings};
use crate::retrieval::library::{IngestProgress, INDEX_MIN_VECTORS};
use crate::retrieval::prepare::{prepare_book, PreparedBook};
use crate::retrieval::prepared_wire::encode_prepared;
use crate::retrieval::vector::VectorSet;

/// Runs one ingestion job: `job` is `{ bookId, book, embedder (JSON text),
/// chunking, embedOnPage, inPage? }`; `embed` is a custom embedder (in the
/// worker, a stand-in that asks the page). Once chunked and embedded, calls
/// `prepared` with `{ book: Uint8Array, vectors: Float32Array, dims }`, then
/// builds the index: resolves with its snapshot (`Uint8Array`), or
/// `undefined` for a book too small for one or `inPage` (which also paces
/// the work).
#[wasm_bindgen(js_name = "__lecternIngest", skip_typescript)]
pub fn ingest_job(
    job: JsValue,
    on_progress: Function,
    embed: Option<Function>,
    signal: JsValue,
    prepared: Function,
) -> Promise {
    panic_guard::install();
    guarded_promise(async move {
        run_job(job, on_progress, embed, signal, prepared)
            .await
            .map_err(|error| error_to_js(&error))
    })
}

fn field(job: &JsValue, name: &str) -> JsValue {
    Reflect::get(job, &name.into()).unwrap_or(JsValue::UNDEFINED)
}

async fn run_job(
    job: JsValue,
    on_progress: Function,
    embed: Option<Function>,
    signal: JsValue,
    on_prepared: Function,
) -> Result<JsValue> {
    let id = field(&job, "bookId")
        .as_string()
        .ok_or_else(|| Error::config("an ingestion job needs a bookId"))?;
    let new = read_book_input(field(&job, "book"))?.into_new_book();
    let embedder_json = field(&job, "embedder")
        .as_string()
        .ok_or_else(|| Error::config("an ingestion job needs its embedder"))?;
    let config = embedder_config(&embedder_json)?;
    let chunking: ChunkSettings = from_js(field(&job, "chunking"), "chunking")?;
    let min_chunks = field(&job, "indexMinChunks").as_f64();
    let index_settings =
        IndexSettings::with_min_vectors(min_chunks.map_or(INDEX_MIN_VECTORS, |n| n as usize));
    let cancel = CancelToken::new();
    link_signal(&signal, &cancel)?;
    // In the page (no worker), the work yields often and builds no index; in the
    // worker it yields now and then, so that a query to embed or a cancel gets in.
    let in_page = field(&job, "inPage").as_bool().unwrap_or(false);
    let pace = if in_page {
        BrowserPace::new()
    } else {
        BrowserPace::in_worker()
    };
    let report = |progress: IngestProgress| {
        if let Ok(value) = to_js(&progress) {
            let _ = on_progress.call1(&JsValue::NULL, &value);
        }
    };
    let embedder = cancel
        .run(loaded_embedder(
            &config,
            embed,
            loading_progress(&id, &on_progress),
        ))
        .await?;
    let prepared = prepare_book(id, new, &chunking, embedder.as_deref(), &report, &cancel, &pace).await?;
    on_prepared
        .call1(&JsValue::NULL, &prepared_message(&prepared)?)
        .map_err(|e| Error::protocol(format!("the worker could not send the book: {}", describe_js(&e))))?;
    let indexing = |done| {
        report(IngestProgress {
            book_id: prepared.id.clone(),
            phase: "indexing",
            done,
            total: 1,
        })
    };
    indexing(0);
    let index = if in_page {
        None
    } else {
        build_index(&prepared.vectors, index_settings)
    };
    indexing(1);
    cancel.check()?;
    Ok(index.map_or(JsValue::UNDEFINED, |(_, snapshot)| {
        Uint8Array::from(snapshot.as_slice()).into()
    }))
}

/// `loading` progress of the embedder's model files, in bytes, to `on_progress`.
fn loading_progress(id: &str, on_progress: &Function) -> OnBytes {
    let (id, on_progress) = (id.to_owned(), on_progress.clone());
    Rc::new(move |done, total| {
        let progress = IngestProgress {
            book_id: id.clone(),
            phase: "loading",
            done: done as usize,
            total: total as usize,
        };
        if let Ok(value) = to_js(&progress) {
            let _ = on_progress.call1(&JsValue::NULL, &value);
        }
    })
}

/// Embeds `texts` (an array of strings) with the embedder `embedder_json`
/// describes (loading its model first, once per module): resolves with
/// their unit vectors as one `Float32Array`, a row per text. How the page
/// embeds queries with an embedder that lives here.
#[wasm_bindgen(js_name = "__lecternEmbed", skip_typescript)]
pub fn embed_texts(embedder_json: String, texts: JsValue) -> Promise {
    panic_guard::install();
    guarded_promise(async move {
        embed_flat(&embedder_json, texts)
            .await
            .map_err(|error| error_to_js(&error))
    })
}

async fn embed_flat(embedder_json: &str, texts: JsValue) -> Result<JsValue> {
    let texts: Vec<String> = from_js(texts, "texts")?;
    let flat: Vec<f32> = embedders::embed_texts(embedder_json, &texts).await?.concat();
    Ok(Float32Array::from(flat.as_slice()).into())
}

/// Builds the index of the `dims`-dimensional `vectors` of a stored book
/// whose index was never finished: its snapshot, or `undefined` for fewer
/// than `min_chunks` vectors.
#[wasm_bindgen(js_name = "__lecternBuildIndex", skip_typescript)]
pub fn build_index_job(
    vectors: Float32Array,
    dims: u32,
    min_chunks: u32,
) -> std::result::Result<JsValue, JsValue> {
    panic_guard::install();
    panic_guard::check_js()?;
    let flat = vectors.to_vec();
    let dims = dims as usize;
    if dims == 0 || flat.len() % dims != 0 {
        let error = Error::protocol(format!("{} values are not rows of {dims}", flat.len()));
        return Err(error_to_js(&error));
    }
    let settings = IndexSettings::with_min_vectors(min_chunks as usize);
    let index = build_index(&VectorSet::from_flat(dims, flat), settings);
    Ok(index.map_or(JsValue::UNDEFINED, |(_, snapshot)| {
        Uint8Array::from(snapshot.as_slice()).into()
    }))
}

/// `{ book: Uint8Array, vectors: Float32Array, dims }`: what the page stores
/// (the book's bytes hold its lexical index; no vectors, `dims` 0, without an embedder).
fn prepared_message(prepared: &PreparedBook) -> Result<JsValue> {
    let result = Object::new();
    let book = Uint8Array::from(encode_prepared(prepared)?.as_slice());
    let vectors = Float32Array::from(prepared.vectors.as_flat());
    let _ = Reflect::set(&result, &"book".into(), &book);
    let _ = Reflect::set(&result, &"vectors".into(), &vectors);
    let _ = Reflect::set(&result, &"dims".into(), &(prepared.vectors.dims() as u32).into());
    Ok(result.into())
}
