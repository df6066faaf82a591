//! The book methods of `Lectern`: addBook, books, deleteBook, setCurrentPage, page, search.

use std::rc::Rc;

use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use super::book_completion::{progress_to, spawn_completion};
use super::book_input::read_book_input;
use super::ingest_worker::IngestError;
use super::js::{error_to_js, from_js, string_arg, to_js};
use super::lectern::{Inner, Lectern};
use super::panic_guard::guarded_promise;
use crate::cancel::CancelToken;
use crate::domain::Book;
use crate::error::{Error, Result};
use crate::retrieval::library::{IndexSource, Library, SearchOptions};

#[wasm_bindgen]
extern "C" {
    /// The argument of `addBook`.
    #[wasm_bindgen(typescript_type = "NewBook")]
    pub type NewBookInput;

    /// The options of `addBook`.
    #[wasm_bindgen(typescript_type = "AddBookOptions")]
    pub type AddBookOptionsInput;

    /// The options of `search`.
    #[wasm_bindgen(typescript_type = "SearchOptions")]
    pub type SearchOptionsInput;
}

/// `addBook`: reads the input and options, then lets the instance's
/// ingestion run it; progress goes to `onProgress` and `onEvent`.
async fn add_book(
    inner: &Rc<Inner>,
    book: JsValue,
    options: Option<JsValue>,
) -> std::result::Result<Book, IngestError> {
    inner.ensure_open()?;
    let library = library(inner)?;
    let new = read_book_input(book)?;
    let cancel = CancelToken::new();
    let mut on_progress: Option<Function> = None;
    let mut signal = JsValue::UNDEFINED;
    if let Some(options) = options.filter(|o| o.is_object()) {
        on_progress = Reflect::get(&options, &"onProgress".into())
            .ok()
            .and_then(|f| f.dyn_into().ok());
        signal = Reflect::get(&options, &"signal".into()).unwrap_or(JsValue::UNDEFINED);
        super::abort_signal::link_signal(&signal, &cancel)?;
    }
    let report = progress_to(on_progress.clone(), inner.listeners.clone());
    let progress = Closure::<dyn Fn(JsValue)>::new(move |value: JsValue| report(value));
    let progress: Function = progress.into_js_value().unchecked_into();
    let book = inner
        .ingestion
        .add_book(&library, new, &progress, &cancel, &signal)
        .await?;
    // Its vectors and index behind the reader; `signal` still stops them.
    let (ingestion, listeners) = (inner.ingestion.clone(), inner.listeners.clone());
    spawn_completion(
        ingestion,
        library,
        book.id.clone(),
        on_progress,
        cancel,
        listeners,
    );
    Ok(book)
}

/// The instance's library of books.
fn library(inner: &Inner) -> Result<Rc<Library>> {
    inner
        .agent
        .library()
        .cloned()
        .ok_or_else(|| Error::config("books are not enabled"))
}

#[wasm_bindgen]
impl Lectern {
    /// Adds a book: `{ title, author?, text | pages | epub }`, with
    /// `{ onProgress?, signal? }`. Resolves with the stored `Book`. The work
    /// runs in Lectern's worker where it can, else in the page, paced.
    #[wasm_bindgen(js_name = addBook, unchecked_return_type = "Promise<Book>")]
    pub fn add_book(&self, book: NewBookInput, options: Option<AddBookOptionsInput>) -> Promise {
        let inner = self.inner.clone();
        guarded_promise(async move {
            let added = add_book(&inner, book.into(), options.map(JsValue::from)).await;
            match added {
                Ok(book) => to_js(&book).map_err(|e| error_to_js(&e)),
                Err(IngestError::Lectern(error)) => Err(error_to_js(&error)),
                Err(IngestError::Js(error)) => Err(error),
            }
        })
    }

    /// Every book, oldest first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Book[]>")]
    pub fn books(&self) -> Promise {
        self.call(|inner| async move { library(&inner)?.books().await })
    }

    /// Deletes a book with its chunks, vectors and index.
    #[wasm_bindgen(js_name = deleteBook, unchecked_return_type = "Promise<void>")]
    pub fn delete_book(
        &self,
        #[wasm_bindgen(js_name = "bookId", unchecked_param_type = "string")] book_id: JsValue,
    ) -> Promise {
        self.call_with_id(book_id, "bookId", |inner, id| async move {
            library(&inner)?.delete_book(&id).await
        })
    }

    /// Moves the reader to `page`; `search_book` never returns text past it.
    #[wasm_bindgen(js_name = setCurrentPage, unchecked_return_type = "Promise<Book>")]
    pub fn set_current_page(
        &self,
        #[wasm_bindgen(js_name = "bookId", unchecked_param_type = "string")] book_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] page: JsValue,
    ) -> Promise {
        self.call_with_id(book_id, "bookId", |inner, id| async move {
            library(&inner)?.set_current_page(&id, page_number(&page)?).await
        })
    }

    /// Page `number` of a book, `{ number, text, chapter? }`, for a reader:
    /// `NotFoundError` for an unknown book, `ConfigError` outside
    /// `1..=pageCount`, `StorageError` (reason `data`) for a book stored
    /// before pages were kept (add it again).
    #[wasm_bindgen(unchecked_return_type = "Promise<BookPage>")]
    pub fn page(
        &self,
        #[wasm_bindgen(js_name = "bookId", unchecked_param_type = "string")] book_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] number: JsValue,
    ) -> Promise {
        self.call_with_id(book_id, "bookId", |inner, id| async move {
            library(&inner)?.page(&id, page_number(&number)?).await
        })
    }

    /// How a book's vector index came to be in this session: `none` (searched
    /// exactly), `building` (in the worker; searched exactly meanwhile),
    /// `built`, or `snapshot` (read back, not rebuilt). Loads the book.
    #[wasm_bindgen(js_name = indexSource, unchecked_return_type = "Promise<'none' | 'building' | 'built' | 'snapshot'>")]
    pub fn index_source(
        &self,
        #[wasm_bindgen(js_name = "bookId", unchecked_param_type = "string")] book_id: JsValue,
    ) -> Promise {
        self.call_with_id(book_id, "bookId", |inner, id| async move {
            let loaded = library(&inner)?.load(&id).await?;
            Ok(match loaded.index_source {
                IndexSource::None => "none",
                IndexSource::Built => "built",
                IndexSource::Building => "building",
                IndexSource::Snapshot => "snapshot",
            })
        })
    }

    /// The stored book as one versioned binary bundle (record, chunks,
    /// vectors, index snapshot) that `importBook` reads, here or elsewhere.
    #[wasm_bindgen(js_name = exportBook, unchecked_return_type = "Promise<Uint8Array>")]
    pub fn export_book(
        &self,
        #[wasm_bindgen(js_name = "bookId", unchecked_param_type = "string")] book_id: JsValue,
    ) -> Promise {
        let inner = self.inner.clone();
        guarded_promise(async move {
            let bytes = async {
                inner.ensure_open()?;
                let id = string_arg(&book_id, "bookId")?;
                library(&inner)?.export_book(&id).await
            };
            let bytes = bytes.await.map_err(|error| error_to_js(&error))?;
            Ok(Uint8Array::from(bytes.as_slice()).into())
        })
    }

    /// Stores the book of an `exportBook` bundle (a `Uint8Array` or
    /// `ArrayBuffer`) as it was exported, id and reader's page included;
    /// checked first, nothing stored on failure.
    #[wasm_bindgen(js_name = importBook, unchecked_return_type = "Promise<Book>")]
    pub fn import_book(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | ArrayBuffer")] bundle: JsValue,
    ) -> Promise {
        self.call(|inner| async move {
            let bytes = if let Some(bytes) = bundle.dyn_ref::<Uint8Array>() {
                bytes.to_vec()
            } else if let Some(buffer) = bundle.dyn_ref::<js_sys::ArrayBuffer>() {
                Uint8Array::new(buffer).to_vec()
            } else {
                return Err(Error::config("importBook needs a Uint8Array or an ArrayBuffer"));
            };
            let library = library(&inner)?;
            let book = library.import_book(&bytes).await?;
            // What it was shipped without (vectors, a big book's index) is computed behind the reader.
            let (ingestion, listeners) = (inner.ingestion.clone(), inner.listeners.clone());
            spawn_completion(
                ingestion,
                library,
                book.id.clone(),
                None,
                CancelToken::new(),
                listeners,
            );
            Ok(book)
        })
    }

    /// Searches books: `{ bookIds?, k = 5, maxPage? }`; with `maxPage`, no result ends after it.
    #[wasm_bindgen(unchecked_return_type = "Promise<SearchResult[]>")]
    pub fn search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        options: Option<SearchOptionsInput>,
    ) -> Promise {
        self.call(|inner| async move {
            let query = string_arg(&query, "query")?;
            let options: SearchOptions = match options
                .map(JsValue::from)
                .filter(|o| !o.is_undefined() && !o.is_null())
            {
                Some(options) => from_js(options, "search options")?,
                None => SearchOptions::default(),
            };
            library(&inner)?
                .search(&query, &options, &CancelToken::new())
                .await
        })
    }
}

/// A page number from JS: a whole number from 1, else a `ConfigError`.
fn page_number(value: &JsValue) -> Result<u32> {
    value
        .as_f64()
        .filter(|p| p.fract() == 0.0 && *p >= 1.0 && *p <= u32::MAX as f64)
        .map(|p| p as u32)
        .ok_or_else(|| Error::config("page must be a whole number from 1"))
}
