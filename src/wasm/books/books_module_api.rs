//! `LecternBooks`' methods: what `Lectern`'s book methods forward (addBook,
//! books, deleteBook, setCurrentPage, page, indexSource, exportBook,
//! importBook, search) and what its book conversations ask (book,
//! readerContext). Arguments come as the host gave them to `Lectern`.

use std::future::Future;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::book_completion::{progress_to, spawn_completion};
use super::book_input::read_book_input;
use super::books_module::LecternBooks;
use super::books_state::BooksInner;
use crate::domain::{Book, Source};
use crate::error::{Error, Result};
use crate::retrieval::library::{IndexSource, SearchOptions};
use crate::retrieval::reader::book_access::BookAccess;
use crate::retrieval::reader::context::ReaderContextPlan;
use crate::runtime::cancel::CancelToken;
use crate::wasm::books::worker::ingest_worker::IngestError;
use crate::wasm::js::{error_to_js, from_js, string_arg, to_js};
use crate::wasm::panic_guard::guarded_promise;
use crate::wasm::promise::promise;

impl LecternBooks {
    /// Runs `work` on the open books as a promise.
    fn call<T, F, Fut>(&self, work: F) -> Promise
    where
        T: Serialize,
        F: FnOnce(Rc<BooksInner>) -> Fut + 'static,
        Fut: Future<Output = Result<T>> + 'static,
    {
        let inner = self.inner.clone();
        promise(async move {
            inner.ensure_open()?;
            work(inner).await
        })
    }

    /// [`LecternBooks::call`] for a method whose first argument is the string `bookId`.
    fn call_with_id<T, F, Fut>(&self, id: JsValue, work: F) -> Promise
    where
        T: Serialize,
        F: FnOnce(Rc<BooksInner>, String) -> Fut + 'static,
        Fut: Future<Output = Result<T>> + 'static,
    {
        self.call(move |inner| async move {
            let id = string_arg(&id, "bookId")?;
            work(inner, id).await
        })
    }
}

/// `addBook`: reads the input and options, then lets the ingestion run it;
/// progress goes to `onProgress` and the page's listeners.
async fn add_book(
    inner: &Rc<BooksInner>,
    book: JsValue,
    options: JsValue,
) -> std::result::Result<Book, IngestError> {
    inner.ensure_open()?;
    let new = read_book_input(book)?;
    let cancel = CancelToken::new();
    let mut on_progress: Option<Function> = None;
    let mut signal = JsValue::UNDEFINED;
    if options.is_object() {
        on_progress = Reflect::get(&options, &"onProgress".into())
            .ok()
            .and_then(|f| f.dyn_into().ok());
        signal = Reflect::get(&options, &"signal".into()).unwrap_or(JsValue::UNDEFINED);
        crate::wasm::abort_signal::link_signal(&signal, &cancel)?;
    }
    let report = progress_to(on_progress.clone(), inner.emit.clone());
    let progress = Closure::<dyn Fn(JsValue)>::new(move |value: JsValue| report(value));
    let progress: Function = progress.into_js_value().unchecked_into();
    let book = inner
        .ingestion
        .add_book(&inner.library, new, &progress, &cancel, &signal)
        .await?;
    // Its vectors and index behind the reader; `signal` still stops them.
    spawn_completion(inner, book.id.clone(), on_progress, cancel);
    Ok(book)
}

#[wasm_bindgen]
impl LecternBooks {
    /// `Lectern.addBook`.
    #[wasm_bindgen(js_name = addBook)]
    pub fn add_book(&self, book: JsValue, options: JsValue) -> Promise {
        let inner = self.inner.clone();
        guarded_promise(async move {
            match add_book(&inner, book, options).await {
                Ok(book) => to_js(&book).map_err(|e| error_to_js(&e)),
                Err(IngestError::Lectern(error)) => Err(error_to_js(&error)),
                Err(IngestError::Js(error)) => Err(error),
            }
        })
    }

    /// `Lectern.books`.
    pub fn books(&self) -> Promise {
        self.call(|inner| async move { inner.library.books().await })
    }

    /// The book with this id (a book conversation's).
    pub fn book(&self, book_id: JsValue) -> Promise {
        self.call_with_id(book_id, |inner, id| async move { inner.library.book(&id).await })
    }

    /// `Lectern.deleteBook`.
    #[wasm_bindgen(js_name = deleteBook)]
    pub fn delete_book(&self, book_id: JsValue) -> Promise {
        self.call_with_id(book_id, |inner, id| async move {
            inner.library.delete_book(&id).await
        })
    }

    /// `Lectern.setCurrentPage`.
    #[wasm_bindgen(js_name = setCurrentPage)]
    pub fn set_current_page(&self, book_id: JsValue, page: JsValue) -> Promise {
        self.call_with_id(book_id, |inner, id| async move {
            inner.library.set_current_page(&id, page_number(&page)?).await
        })
    }

    /// `Lectern.page`.
    pub fn page(&self, book_id: JsValue, number: JsValue) -> Promise {
        self.call_with_id(book_id, |inner, id| async move {
            inner.library.page(&id, page_number(&number)?).await
        })
    }

    /// `Lectern.indexSource`.
    #[wasm_bindgen(js_name = indexSource)]
    pub fn index_source(&self, book_id: JsValue) -> Promise {
        self.call_with_id(book_id, |inner, id| async move {
            let loaded = inner.library.load(&id).await?;
            Ok(match loaded.index_source {
                IndexSource::None => "none",
                IndexSource::Built => "built",
                IndexSource::Building => "building",
                IndexSource::Snapshot => "snapshot",
            })
        })
    }

    /// `Lectern.exportBook`.
    #[wasm_bindgen(js_name = exportBook)]
    pub fn export_book(&self, book_id: JsValue) -> Promise {
        let inner = self.inner.clone();
        guarded_promise(async move {
            let bytes = async {
                inner.ensure_open()?;
                let id = string_arg(&book_id, "bookId")?;
                inner.library.export_book(&id).await
            };
            let bytes = bytes.await.map_err(|error| error_to_js(&error))?;
            Ok(Uint8Array::from(bytes.as_slice()).into())
        })
    }

    /// `Lectern.importBook`.
    #[wasm_bindgen(js_name = importBook)]
    pub fn import_book(&self, bundle: JsValue) -> Promise {
        self.call(|inner| async move {
            let bytes = if let Some(bytes) = bundle.dyn_ref::<Uint8Array>() {
                bytes.to_vec()
            } else if let Some(buffer) = bundle.dyn_ref::<js_sys::ArrayBuffer>() {
                Uint8Array::new(buffer).to_vec()
            } else {
                return Err(Error::config("importBook needs a Uint8Array or an ArrayBuffer"));
            };
            let book = inner.library.import_book(&bytes).await?;
            // What it was shipped without (vectors, a big book's index) is computed behind the reader.
            spawn_completion(&inner, book.id.clone(), None, CancelToken::new());
            Ok(book)
        })
    }

    /// `Lectern.search`.
    pub fn search(&self, query: JsValue, options: JsValue) -> Promise {
        self.call(|inner| async move {
            let query = string_arg(&query, "query")?;
            let options: SearchOptions = match options {
                options if options.is_undefined() || options.is_null() => SearchOptions::default(),
                options => from_js(options, "search options")?,
            };
            inner.library.search(&query, &options, &CancelToken::new()).await
        })
    }

    /// The passages in front of the model for `question` in book `bookId`,
    /// as the page's `plan` (a `ReaderContextPlan`) says.
    #[wasm_bindgen(js_name = readerContext)]
    pub fn reader_context(&self, book_id: JsValue, question: JsValue, plan: JsValue) -> Promise {
        self.call_with_id(book_id, |inner, id| async move {
            let question = string_arg(&question, "question")?;
            let plan: ReaderContextPlan = from_js(plan, "reader context plan")?;
            inner
                .library
                .reader_context(&id, &question, &plan, &CancelToken::new())
                .await
        })
    }

    /// The quoted answer to `question` from `sources` (a context's passages)
    /// at book `bookId`'s reader's page.
    #[wasm_bindgen(js_name = quotedAnswer)]
    pub fn quoted_answer(&self, book_id: JsValue, question: JsValue, sources: JsValue) -> Promise {
        self.call_with_id(book_id, |inner, id| async move {
            let question = string_arg(&question, "question")?;
            let sources: Vec<Source> = from_js(sources, "sources")?;
            let cancel = CancelToken::new();
            inner
                .library
                .quoted_answer(&id, &question, &sources, &cancel)
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
