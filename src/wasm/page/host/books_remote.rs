//! The page's side of the books: the books module (`lectern_books.js`,
//! feature `ingest`) loaded on the first book call or book conversation, so
//! a chat that never opens a book never downloads it. `Lectern`'s book
//! methods forward to its `LecternBooks`; the agent asks it through
//! [`BookAccess`]. A module built with the `ingest` feature too (the
//! crate's browser tests) opens its own `LecternBooks`, through the same calls.

use std::cell::{Cell, RefCell};

use futures::future::LocalBoxFuture;
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::domain::{Book, Source};
use crate::error::{Error, Result, StorageReason};
use crate::retrieval::books_settings::BooksSettings;
use crate::retrieval::library::search_options::{SearchOptions, SearchResult};
use crate::retrieval::reader::book_access::BookAccess;
use crate::retrieval::reader::context::ReaderContextPlan;
use crate::retrieval::reader::quotes::QuotedAnswer;
use crate::runtime::cancel::CancelToken;
use crate::wasm::js::{error_from_js, error_to_js, from_js, to_js};

#[wasm_bindgen]
extern "C" {
    /// A `LecternBooks` of the books module: each method returns a promise
    /// (arguments as the host gave them to `Lectern`).
    #[derive(Clone)]
    pub type BooksModule;

    #[wasm_bindgen(method, js_name = addBook)]
    pub fn add_book(this: &BooksModule, book: &JsValue, options: &JsValue) -> Promise;
    #[wasm_bindgen(method)]
    pub fn books(this: &BooksModule) -> Promise;
    #[wasm_bindgen(method)]
    pub fn book(this: &BooksModule, book_id: &JsValue) -> Promise;
    #[wasm_bindgen(method, js_name = deleteBook)]
    pub fn delete_book(this: &BooksModule, book_id: &JsValue) -> Promise;
    #[wasm_bindgen(method, js_name = setCurrentPage)]
    pub fn set_current_page(this: &BooksModule, book_id: &JsValue, page: &JsValue) -> Promise;
    #[wasm_bindgen(method)]
    pub fn page(this: &BooksModule, book_id: &JsValue, number: &JsValue) -> Promise;
    #[wasm_bindgen(method, js_name = indexSource)]
    pub fn index_source(this: &BooksModule, book_id: &JsValue) -> Promise;
    #[wasm_bindgen(method, js_name = exportBook)]
    pub fn export_book(this: &BooksModule, book_id: &JsValue) -> Promise;
    #[wasm_bindgen(method, js_name = importBook)]
    pub fn import_book(this: &BooksModule, bundle: &JsValue) -> Promise;
    #[wasm_bindgen(method)]
    pub fn search(this: &BooksModule, query: &JsValue, options: &JsValue) -> Promise;
    #[wasm_bindgen(method, js_name = readerContext)]
    fn reader_context(this: &BooksModule, book_id: &JsValue, question: &JsValue, plan: &JsValue) -> Promise;
    #[wasm_bindgen(method, js_name = quotedAnswer)]
    fn quoted_answer(this: &BooksModule, book_id: &JsValue, question: &JsValue, sources: &JsValue)
        -> Promise;
    #[wasm_bindgen(method)]
    fn close(this: &BooksModule);
}

#[cfg(not(feature = "books"))]
#[wasm_bindgen(module = "/src/wasm/page/host/books_host.js")]
extern "C" {
    /// Loads the books module and opens its `LecternBooks`.
    #[wasm_bindgen(js_name = openBooks)]
    fn open_books(settings: &JsValue, embed: &JsValue, emit: &Function) -> Promise;
}

/// This module's own `LecternBooks` (built with the `ingest` feature too).
#[cfg(feature = "books")]
fn open_books(settings: &JsValue, embed: &JsValue, emit: &Function) -> Promise {
    use wasm_bindgen::JsCast;
    let embed = embed.clone().dyn_into::<Function>().ok();
    crate::wasm::books::books_module::LecternBooks::open(settings.clone(), embed, emit.clone())
}

/// The books of one `Lectern` instance, opened on first use.
pub struct RemoteBooks {
    /// [`BooksSettings`] as JS.
    settings: JsValue,
    /// A custom embedder's `embed` function, or `undefined`.
    embed: JsValue,
    /// Hands the books' events to the instance's listeners.
    emit: Function,
    opening: RefCell<Option<Promise>>,
    opened: RefCell<Option<BooksModule>>,
    closed: Cell<bool>,
}

impl RemoteBooks {
    /// Books to open with `settings`, a custom embedder's `embed`, and `emit` for their events.
    pub fn new(settings: &BooksSettings, embed: Option<Function>, emit: Function) -> Result<Self> {
        Ok(RemoteBooks {
            settings: to_js(settings)?,
            embed: embed.map_or(JsValue::UNDEFINED, JsValue::from),
            emit,
            opening: RefCell::new(None),
            opened: RefCell::new(None),
            closed: Cell::new(false),
        })
    }

    /// The open `LecternBooks`, loaded and opened on the first call; a failed
    /// load is tried again next time. Rejects as the books module did.
    pub async fn module(&self) -> std::result::Result<BooksModule, JsValue> {
        if let Some(module) = self.opened.borrow().clone() {
            return Ok(module);
        }
        let opening = self
            .opening
            .borrow_mut()
            .get_or_insert_with(|| open_books(&self.settings, &self.embed, &self.emit))
            .clone();
        let outcome = JsFuture::from(opening).await;
        let module: BooksModule = match outcome {
            Ok(module) => module.unchecked_into(),
            Err(error) => {
                self.opening.borrow_mut().take();
                return Err(error);
            }
        };
        if self.closed.get() {
            module.close();
            return Err(error_to_js(&Error::storage_because(
                StorageReason::Closed,
                "this Lectern instance was closed; open a new one",
            )));
        }
        self.opened.borrow_mut().get_or_insert(module.clone());
        Ok(module)
    }

    /// Closes the books, if they were opened (and those still opening, once open).
    pub fn close(&self) {
        self.closed.set(true);
        if let Some(module) = self.opened.borrow_mut().take() {
            module.close();
        }
    }

    /// Runs `call` on the books and reads what its promise resolves with.
    async fn ask<T: crate::json::from_json::FromJson>(
        &self,
        what: &str,
        call: impl FnOnce(&BooksModule) -> Promise,
    ) -> Result<T> {
        let module = self.module().await.map_err(|error| error_from_js(&error))?;
        let value = JsFuture::from(call(&module))
            .await
            .map_err(|error| error_from_js(&error))?;
        from_js(value, what)
    }
}

impl BookAccess for RemoteBooks {
    fn book<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Book>> {
        Box::pin(self.ask("book", |books| books.book(&id.into())))
    }

    fn search<'a>(
        &'a self,
        query: &'a str,
        options: &'a SearchOptions,
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<SearchResult>>> {
        Box::pin(cancel.run(async move {
            let options = to_js(options)?;
            self.ask("search results", |books| books.search(&query.into(), &options))
                .await
        }))
    }

    fn reader_context<'a>(
        &'a self,
        book_id: &'a str,
        question: &'a str,
        plan: &'a ReaderContextPlan,
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Source>>> {
        Box::pin(cancel.run(async move {
            let plan = to_js(plan)?;
            self.ask("reader context", |books| {
                books.reader_context(&book_id.into(), &question.into(), &plan)
            })
            .await
        }))
    }

    fn quoted_answer<'a>(
        &'a self,
        book_id: &'a str,
        question: &'a str,
        sources: &'a [Source],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<QuotedAnswer>> {
        Box::pin(cancel.run(async move {
            let sources = to_js(&sources)?;
            self.ask("quoted answer", |books| {
                books.quoted_answer(&book_id.into(), &question.into(), &sources)
            })
            .await
        }))
    }
}
