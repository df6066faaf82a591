//! The ingestion module's entries (feature `ingest`), run by Lectern's worker
//! (`lectern_worker.js`) or, without one, in the page: one job in (the book,
//! the embedder's settings, the chunking), the prepared book out as
//! transferable buffers; and an index built from stored vectors. Not part of
//! the public API.

use js_sys::{Float32Array, Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::error::{Error, Result};
use crate::retrieval::index::{build_index, settings::IndexSettings};
use crate::retrieval::ingest::ingest_job::IngestJob;
use crate::retrieval::ingest::prepare::prepare_book;
use crate::retrieval::ingest::prepared_wire::encode_prepared;
use crate::retrieval::library::IngestProgress;
use crate::retrieval::vectors::vector::VectorSet;
use crate::runtime::cancel::CancelToken;
use crate::wasm::abort_signal::link_signal;
use crate::wasm::books::embedders;
use crate::wasm::books::minilm_files::on_bytes_to;
use crate::wasm::js::{error_to_js, from_js, to_js};
use crate::wasm::panic_guard::{self, guarded_promise};
use crate::web::BrowserPace;

/// Runs one ingestion job: `message` is `{ job, epub? }`, the JSON text of
/// an [`IngestJob`] and an EPUB's bytes, in Lectern's worker. Resolves with the
/// prepared book, `{ book: Uint8Array }` (pages, chunks and lexical index:
/// what the page stores so that the book is searched at once; its vectors
/// and index come after, see `Ingestion::complete`).
#[wasm_bindgen(js_name = "__lecternIngest", skip_typescript)]
pub fn ingest_job(message: JsValue, on_progress: Function, signal: JsValue) -> Promise {
    panic_guard::install();
    guarded_promise(async move {
        run_job(message, on_progress, signal)
            .await
            .map_err(|error| error_to_js(&error))
    })
}

fn field(message: &JsValue, name: &str) -> JsValue {
    Reflect::get(message, &name.into()).unwrap_or(JsValue::UNDEFINED)
}

async fn run_job(message: JsValue, on_progress: Function, signal: JsValue) -> Result<JsValue> {
    let text = field(&message, "job")
        .as_string()
        .ok_or_else(|| Error::protocol("an ingestion message needs its job"))?;
    let job = IngestJob::from_text(&text)?;
    let epub = field(&message, "epub")
        .dyn_into::<Uint8Array>()
        .ok()
        .map(|bytes| bytes.to_vec());
    let (id, chunking) = (job.book_id.clone(), job.chunking);
    let new = job.into_new_book(epub)?;
    let cancel = CancelToken::new();
    link_signal(&signal, &cancel)?;
    // The work yields now and then, so that a query to embed or a cancel gets in.
    let pace = BrowserPace::in_worker();
    let report = |progress: IngestProgress| {
        if let Ok(value) = to_js(&progress) {
            let _ = on_progress.call1(&JsValue::NULL, &value);
        }
    };
    let prepared = prepare_book(id, new, &chunking, None, &report, &cancel, &pace).await?;
    let result = Object::new();
    let book = Uint8Array::from(encode_prepared(&prepared)?.as_slice());
    let _ = Reflect::set(&result, &"book".into(), &book);
    Ok(result.into())
}

/// Embeds `texts` (an array of strings) with the embedder `embedder_json`
/// describes (loading its model first, once per module, its bytes reported
/// to `on_bytes(done, total)`): resolves with their unit vectors as one
/// `Float32Array`, a row per text. How the page embeds queries and book
/// chunks with an embedder that lives here.
#[wasm_bindgen(js_name = "__lecternEmbed", skip_typescript)]
pub fn embed_texts(embedder_json: String, texts: JsValue, on_bytes: Option<Function>) -> Promise {
    panic_guard::install();
    guarded_promise(async move {
        embed_flat(&embedder_json, texts, on_bytes)
            .await
            .map_err(|error| error_to_js(&error))
    })
}

async fn embed_flat(embedder_json: &str, texts: JsValue, on_bytes: Option<Function>) -> Result<JsValue> {
    let texts: Vec<String> = from_js(texts, "texts")?;
    let flat: Vec<f32> = embedders::embed_texts(embedder_json, &texts, on_bytes_to(on_bytes))
        .await?
        .concat();
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
