//! Where `addBook` does its work: in Lectern's own module Worker
//! (`lectern_worker.js`, started on the first book, stopped by `close()`),
//! or — without Workers, with `worker: false`, or when the worker cannot
//! start — here in the page's books module, yielding to the event loop
//! between slices.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use js_sys::{Array, Float32Array, Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::domain::Book;
use crate::error::{Error, Result};
use crate::retrieval::index::builder::IndexBuilder;
use crate::retrieval::index::settings::IndexSettings;
use crate::retrieval::index::BuiltIndex;
use crate::retrieval::ingest::ingest_job::IngestJob;
use crate::retrieval::ingest::prepare::PreparedBook;
use crate::retrieval::ingest::prepared_wire::decode_prepared;
use crate::retrieval::library::{IndexSource, IngestProgress, Library};
use crate::retrieval::vectors::vector::VectorSet;
use crate::runtime::cancel::CancelToken;
use crate::wasm::books::book_input::{BookInput, SourceInput};
use crate::web::BrowserPace;

#[wasm_bindgen(module = "/src/wasm/books/worker/worker_host.js")]
extern "C" {
    /// The page's handle on the ingestion worker.
    type IngestWorker;

    /// `use_worker`: try the worker first (else `run` and `embedTexts` resolve `null`).
    #[wasm_bindgen(constructor)]
    fn new(url: Option<String>, use_worker: bool) -> IngestWorker;

    /// Resolves with the prepared book (`{ book: Uint8Array }`: pages,
    /// chunks and lexical index), `null` if it cannot run here.
    #[wasm_bindgen(method)]
    fn run(
        this: &IngestWorker,
        job: &JsValue,
        transfer: &Array,
        on_progress: &Function,
        signal: &JsValue,
    ) -> Promise;

    /// Resolves with the snapshot of the index of `vectors` (transferred),
    /// or `null` if there is none: too few vectors, the worker cannot start
    /// or stopped.
    #[wasm_bindgen(method)]
    fn index(this: &IngestWorker, vectors: Float32Array, dims: u32, min_chunks: u32) -> Promise;

    /// Resolves with the vectors of `texts` as one `Float32Array` (computed
    /// in the worker, the model's bytes to `on_bytes(done, total)` while it
    /// loads), or `null` if there is no worker.
    #[wasm_bindgen(method, js_name = embedTexts)]
    fn embed_texts(
        this: &IngestWorker,
        embedder: &str,
        texts: &JsValue,
        on_bytes: Option<Function>,
    ) -> Promise;

    #[wasm_bindgen(method)]
    fn terminate(this: &IngestWorker);

    /// Whether the worker was found unable to start (then it is not tried again).
    #[wasm_bindgen(method, getter)]
    fn unavailable(this: &IngestWorker) -> bool;
}

/// Ingests `new` here, paced, lexically.
async fn add_in_module(
    library: &Library,
    new: BookInput,
    progress: &Function,
    cancel: &CancelToken,
) -> Result<Book> {
    let pace = BrowserPace::new();
    let id = library.book_id_for(new.id.as_deref())?;
    library
        .add_book_lexical_as(id, new.into_new_book(), &js_progress(progress), cancel, &pace)
        .await
}

/// `progress` (a JS function) as the library's progress callback.
fn js_progress(progress: &Function) -> impl Fn(IngestProgress) + '_ {
    move |p: IngestProgress| {
        if let Ok(value) = crate::wasm::js::to_js(&p) {
            let _ = progress.call1(&JsValue::NULL, &value);
        }
    }
}

/// Embeds `texts` here, without a worker.
async fn embed_in_module(
    embedder_json: &str,
    texts: &[String],
    on_bytes: Option<Function>,
) -> Result<Vec<Vec<f32>>> {
    crate::wasm::books::embedders::embed_texts(
        embedder_json,
        texts,
        crate::wasm::books::minilm_files::on_bytes_to(on_bytes),
    )
    .await
}

/// What an ingestion needs besides the book, and the worker it owns.
pub struct Ingestion {
    /// Whether to try the worker (option `worker`, default true).
    use_worker: bool,
    /// Option `workerUrl`: where the worker script is, if not beside `lectern.js`.
    worker_url: Option<String>,
    /// The embedder's options as JSON (without `embed`), for the worker.
    embedder_json: String,
    /// Whether the embedder's model lives in the ingestion module (MiniLM).
    model_in_module: bool,
    worker: RefCell<Option<IngestWorker>>,
    /// Books whose index the worker is building.
    indexing: RefCell<HashSet<String>>,
    /// Tripped by `close()`: what runs behind the reader stops.
    stopped: CancelToken,
}

/// A failure to hand to JS: Lectern's own error, or one the worker sent
/// (already a JS `Error` of the right name and fields).
pub enum IngestError {
    /// An error of this side.
    Lectern(Error),
    /// An error as the worker reported it.
    Js(JsValue),
}

impl From<Error> for IngestError {
    fn from(error: Error) -> Self {
        IngestError::Lectern(error)
    }
}

impl Ingestion {
    /// Ingestion as the open options describe it.
    pub fn new(
        use_worker: bool,
        worker_url: Option<String>,
        embedder_json: String,
        model_in_module: bool,
    ) -> Self {
        Ingestion {
            use_worker,
            worker_url,
            embedder_json,
            model_in_module,
            worker: RefCell::new(None),
            indexing: RefCell::new(HashSet::new()),
            stopped: CancelToken::new(),
        }
    }

    /// Adds `new` to `library`, searchable lexically at once: pages, chunks
    /// and lexical index prepared in the worker (or here, paced) and stored
    /// here. Its vectors and index come after, from [`Ingestion::complete`].
    pub async fn add_book(
        self: &Rc<Self>,
        library: &Rc<Library>,
        new: BookInput,
        progress: &Function,
        cancel: &CancelToken,
        signal: &JsValue,
    ) -> std::result::Result<Book, IngestError> {
        if self.use_worker {
            let id = library.book_id_for(new.id.as_deref())?;
            let job = self.job(&id, &new, library)?;
            let worker = self.worker();
            let promise = worker.run(&job.0, &job.1, progress, signal);
            let outcome = cancel.run(async { Ok(JsFuture::from(promise).await) }).await?;
            let result = outcome.map_err(IngestError::Js)?;
            if !result.is_null() && !result.is_undefined() {
                return Ok(library
                    .store_prepared(read_result(&result)?, None, cancel)
                    .await?);
            }
        }
        Ok(add_in_module(library, new, progress, cancel).await?)
    }

    /// What a stored book still lacks, behind the reader: its vectors (if
    /// it has none and the library an embedder), computed by the library's
    /// embedder a few chunks at a time (MiniLM in the worker), then its
    /// index (if it is big enough) from the worker. Progress to `progress`;
    /// stops with `cancel` or `close()`, leaving the book searched lexically
    /// (the next open takes it up again).
    pub async fn complete(
        self: &Rc<Self>,
        library: &Rc<Library>,
        id: &str,
        progress: Rc<dyn Fn(IngestProgress)>,
        cancel: &CancelToken,
    ) -> Result<()> {
        let linked = cancel.clone();
        self.stopped.on_cancel(move || linked.cancel());
        if self.model_in_module && !library.load(id).await?.book.has_vectors() {
            cancel.run(self.load_model(id, &progress)).await?;
        }
        let pace = BrowserPace::new();
        library
            .embed_pending(id, progress.as_ref(), cancel, &pace)
            .await?;
        let building = library.load(id).await?.index_source == IndexSource::Building;
        if building && !cancel.is_cancelled() {
            let report = |done| {
                progress(IngestProgress {
                    book_id: id.to_owned(),
                    phase: "indexing",
                    done,
                    total: 1,
                })
            };
            report(0);
            self.build_index(library, id).await;
            report(1);
        }
        Ok(())
    }

    /// Has the worker build the index of a loaded book that waits for one
    /// ([`IndexSource::Building`]), once; the book is searched exactly meanwhile,
    /// and without a worker for good.
    pub async fn build_index(self: &Rc<Self>, library: &Rc<Library>, id: &str) {
        let Ok(loaded) = library.load(id).await else {
            return;
        };
        if loaded.index_source != IndexSource::Building || !self.indexing.borrow_mut().insert(id.to_owned()) {
            return;
        }
        let vectors = Float32Array::from(loaded.vectors.as_flat());
        let dims = loaded.vectors.dims() as u32;
        drop(loaded);
        let min = library.indexing().min_vectors as u32;
        let indexed = self.worker().index(vectors, dims, min);
        self.attach(library, id, indexed).await;
    }

    /// Saves and uses the index the worker built for a stored book, once it
    /// comes; if none comes, the book is searched exactly.
    async fn attach(&self, library: &Library, id: &str, indexed: Promise) {
        let snapshot = JsFuture::from(indexed).await.unwrap_or(JsValue::NULL);
        self.indexing.borrow_mut().remove(id);
        let attached = match snapshot.dyn_into::<Uint8Array>() {
            Ok(snapshot) => library.attach_snapshot(id, &snapshot.to_vec()).await.is_ok(),
            Err(_) => false,
        };
        if !attached {
            library.forgo_index(id);
        }
    }

    /// The worker, made (not yet started) on first use.
    fn worker(&self) -> IngestWorker {
        let mut slot = self.worker.borrow_mut();
        slot.get_or_insert_with(|| IngestWorker::new(self.worker_url.clone(), self.use_worker))
            .clone()
            .unchecked_into()
    }

    /// The message that carries book `id`'s [`IngestJob`] to the ingestion
    /// module: `{ job: JSON text, epub?: Uint8Array }`, with the EPUB's buffer
    /// to transfer.
    fn job(&self, id: &str, new: &BookInput, library: &Library) -> Result<(JsValue, Array)> {
        let (message, transfer) = (Object::new(), Array::new());
        let (mut text, mut pages) = (None, None);
        match &new.source {
            SourceInput::Text(value) => text = value.as_string(),
            SourceInput::Pages(list) => {
                pages = Some(list.iter().map(|p| p.as_string().unwrap_or_default()).collect())
            }
            SourceInput::Epub(bytes) => {
                let copy = bytes.slice(0, bytes.length());
                transfer.push(&copy.buffer());
                set(&message, "epub", &copy);
            }
        }
        let job = IngestJob {
            book_id: id.to_owned(),
            title: new.title.clone(),
            author: new.author.clone(),
            text,
            pages,
            chunking: *library.chunking(),
        };
        set(&message, "job", &job.to_text()?.into());
        Ok((message.into(), transfer))
    }

    /// The unit vectors of `texts`, computed by the embedder in the
    /// ingestion module (the worker's, or the page's without a worker).
    pub async fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        self.embed_reporting(texts, None).await
    }

    /// Loads the model of an embedder that lives in the ingestion module
    /// (MiniLM), reporting its bytes as the `loading` phase of book `id`.
    async fn load_model(&self, id: &str, progress: &Rc<dyn Fn(IngestProgress)>) -> Result<()> {
        let (book_id, progress) = (id.to_owned(), progress.clone());
        let on_bytes = Closure::<dyn Fn(f64, f64)>::new(move |done: f64, total: f64| {
            progress(IngestProgress {
                book_id: book_id.clone(),
                phase: "loading",
                done: done as usize,
                total: total as usize,
            })
        });
        let on_bytes: &Function = on_bytes.as_ref().unchecked_ref();
        self.embed_reporting(&[], Some(on_bytes.clone())).await.map(drop)
    }

    async fn embed_reporting(&self, texts: &[String], on_bytes: Option<Function>) -> Result<Vec<Vec<f32>>> {
        let worker = self.worker();
        let promise = worker.embed_texts(
            &self.embedder_json,
            &crate::wasm::js::to_js(texts)?,
            on_bytes.clone(),
        );
        let flat = JsFuture::from(promise)
            .await
            .map_err(|error| crate::wasm::js::error_from_js(&error))?;
        if flat.is_null() {
            return embed_in_module(&self.embedder_json, texts, on_bytes).await;
        }
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let flat: Float32Array = flat
            .dyn_into()
            .map_err(|_| Error::protocol("the ingestion worker sent no vectors"))?;
        let flat = flat.to_vec();
        if texts.is_empty() || flat.len() % texts.len() != 0 {
            return Err(Error::protocol(format!(
                "the ingestion worker sent {} values for {} texts",
                flat.len(),
                texts.len()
            )));
        }
        Ok(flat
            .chunks(flat.len() / texts.len())
            .map(<[f32]>::to_vec)
            .collect())
    }

    /// Stops the worker, if one runs, and the work behind the reader.
    pub fn close(&self) {
        self.stopped.cancel();
        if let Some(worker) = self.worker.borrow_mut().take() {
            worker.terminate();
        }
    }
}

fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &key.into(), value);
}

/// The prepared book from the worker's result (`{ book: Uint8Array }`).
fn read_result(result: &JsValue) -> Result<PreparedBook> {
    let book: Uint8Array = Reflect::get(result, &"book".into())
        .ok()
        .and_then(|b| b.dyn_into().ok())
        .ok_or_else(|| Error::protocol("the ingestion worker sent a malformed result"))?;
    decode_prepared(&book.to_vec(), VectorSet::new(0))
}

/// This page's missing indexes are built in the worker, and attached when
/// it is done; with `worker: false`, no `Worker`, or a worker that failed,
/// nowhere (one synchronous build would freeze the page; exact search serves).
impl IndexBuilder for Ingestion {
    fn build_now(&self, _: &VectorSet, _: IndexSettings) -> Option<BuiltIndex> {
        None
    }

    fn builds_later(&self) -> bool {
        let has_worker = Reflect::has(&js_sys::global(), &"Worker".into()).unwrap_or(false);
        let failed = self.worker.borrow().as_ref().is_some_and(|w| w.unavailable());
        self.use_worker && has_worker && !failed
    }
}
