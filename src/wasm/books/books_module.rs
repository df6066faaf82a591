//! `LecternBooks`: the books behind `Lectern`'s book methods and its book
//! conversations, in the books module (`lectern_books.js`, feature
//! `ingest`) that the page loads on first use. It opens the same database
//! as the page's module, owns the library and Lectern's ingestion worker,
//! and fills in what a stored book still lacks (vectors, index) behind the
//! reader, reporting to the page's listeners.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

use super::book_completion::spawn_completion;
use super::books_state::{BooksInner, Emit};
use super::embedders::optional_embedder;
use crate::error::Result;
use crate::retrieval::books_settings::BooksSettings;
use crate::retrieval::config::EmbedderConfig;
use crate::retrieval::embed::Embedder;
use crate::retrieval::library::Library;
use crate::runtime::cancel::CancelToken;
use crate::storage::{BookStore, MemoryStore};
use crate::wasm::books::worker::ingest_worker::Ingestion;
use crate::wasm::books::worker::worker_embedder::WorkerEmbedder;
use crate::wasm::js::{error_to_js, from_js};
use crate::wasm::panic_guard::{self, guarded_promise};
use crate::web::{BrowserClock, IndexedDbOptions, IndexedDbStore, DEFAULT_BLOCKED_TIMEOUT_MS};

/// The books of one `Lectern` instance.
#[wasm_bindgen]
pub struct LecternBooks {
    pub(super) inner: Rc<BooksInner>,
}

/// Opens the books `settings` describe, with the host's `embed` function (a
/// custom embedder's) and the page's `emit`.
async fn open_books(settings: JsValue, embed: Option<Function>, emit: Function) -> Result<LecternBooks> {
    let settings: BooksSettings = from_js(settings, "books settings")?;
    let retrieval = settings.retrieval_settings()?;
    let embedder_config = settings.embedder_config()?;
    let (store, database): (Rc<dyn BookStore>, _) = match &settings.db_name {
        Some(name) => {
            let options = IndexedDbOptions {
                blocked_timeout_ms: settings.blocked_timeout_ms.unwrap_or(DEFAULT_BLOCKED_TIMEOUT_MS),
                ..IndexedDbOptions::default()
            };
            let db = Rc::new(IndexedDbStore::open_with(name, &options).await?);
            (db.clone(), Some(db))
        }
        None => (Rc::new(MemoryStore::new()), None),
    };
    let model_in_module = matches!(embedder_config, EmbedderConfig::Minilm(_));
    let ingestion = Rc::new(Ingestion::new(
        settings.worker,
        settings.worker_url.clone(),
        settings.embedder.clone(),
        model_in_module,
    ));
    let embedder = match &embedder_config {
        // The model lives in the worker; queries are embedded there.
        EmbedderConfig::Minilm(_) => {
            Some(Rc::new(WorkerEmbedder::new(ingestion.clone())) as Rc<dyn Embedder>)
        }
        config => optional_embedder(config, embed)?,
    };
    let library = Rc::new(
        Library::with_embedder(store, embedder, Rc::new(BrowserClock), retrieval.chunking())
            .with_index_settings(retrieval.indexing()),
    );
    library.set_index_builder(ingestion.clone());
    let emit: Emit = Rc::new(move |event: &JsValue| {
        // A listener that throws must not break the books.
        let _ = emit.call1(&JsValue::NULL, event);
    });
    let inner = Rc::new(BooksInner {
        library,
        ingestion,
        database,
        emit,
        closed: Cell::new(false),
    });
    warm(&inner);
    Ok(LecternBooks { inner })
}

/// Reads every book and its index snapshot now, off the critical path, so the
/// first search waits for neither; vectors or an index that were never
/// finished are computed meanwhile (never blocking the page).
fn warm(inner: &Rc<BooksInner>) {
    let inner = inner.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let Ok(all) = inner.library.books().await else {
            return;
        };
        for book in all {
            if inner.library.load(&book.id).await.is_ok() {
                spawn_completion(&inner, book.id, None, CancelToken::new());
            }
        }
    });
}

#[wasm_bindgen]
impl LecternBooks {
    /// Opens the books: `settings` as [`BooksSettings`] writes them, `embed`
    /// a custom embedder's function, `emit` the page's event listener.
    #[wasm_bindgen(js_name = open)]
    pub fn open(settings: JsValue, embed: Option<Function>, emit: Function) -> Promise {
        panic_guard::install();
        guarded_promise(async move {
            match open_books(settings, embed, emit).await {
                Ok(books) => Ok(books.into()),
                Err(error) => Err(error_to_js(&error)),
            }
        })
    }

    /// Stops the worker and the work behind the reader, and closes the database.
    pub fn close(&self) {
        if !self.inner.closed.replace(true) {
            self.inner.ingestion.close();
            if let Some(db) = &self.inner.database {
                db.close();
            }
        }
    }
}
