//! The book methods of `Lectern`: addBook, books, deleteBook,
//! setCurrentPage, page, indexSource, exportBook, importBook, search. Each
//! forwards its arguments, as the host gave them, to the books module
//! ([`crate::wasm::page::host::books_remote`]), loaded on the first of them.

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::wasm::js::error_to_js;
use crate::wasm::page::host::books_remote::BooksModule;
use crate::wasm::page::lectern::Lectern;
use crate::wasm::panic_guard::guarded_promise;

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

impl Lectern {
    /// Runs `call` on the books of the open instance (loading them first) as
    /// a promise that settles as the books module's does.
    fn on_books(&self, call: impl FnOnce(&BooksModule) -> Promise + 'static) -> Promise {
        let inner = self.inner.clone();
        guarded_promise(async move {
            inner.ensure_open().map_err(|error| error_to_js(&error))?;
            let books = inner.books.module().await?;
            JsFuture::from(call(&books)).await
        })
    }
}

#[wasm_bindgen]
impl Lectern {
    /// Adds a book: `{ title, author?, text | pages | epub }`, with
    /// `{ onProgress?, signal? }`. Resolves with the stored `Book`, searchable
    /// by words at once; its vectors and index fill in behind the reader. The
    /// work runs in Lectern's worker where it can, else in the page, paced.
    #[wasm_bindgen(js_name = addBook, unchecked_return_type = "Promise<Book>")]
    pub fn add_book(&self, book: NewBookInput, options: Option<AddBookOptionsInput>) -> Promise {
        let (book, options) = (
            JsValue::from(book),
            options.map_or(JsValue::UNDEFINED, JsValue::from),
        );
        self.on_books(move |books| books.add_book(&book, &options))
    }

    /// Every book, oldest first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Book[]>")]
    pub fn books(&self) -> Promise {
        self.on_books(|books| books.books())
    }

    /// Deletes a book with its chunks, vectors and index.
    #[wasm_bindgen(js_name = deleteBook, unchecked_return_type = "Promise<void>")]
    pub fn delete_book(
        &self,
        #[wasm_bindgen(js_name = "bookId", unchecked_param_type = "string")] book_id: JsValue,
    ) -> Promise {
        self.on_books(move |books| books.delete_book(&book_id))
    }

    /// Moves the reader to `page`; `search_book` never returns text past it.
    /// Opened with `sync`, every device's reader follows.
    #[wasm_bindgen(js_name = setCurrentPage, unchecked_return_type = "Promise<Book>")]
    pub fn set_current_page(
        &self,
        #[wasm_bindgen(js_name = "bookId", unchecked_param_type = "string")] book_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] page: JsValue,
    ) -> Promise {
        let inner = self.inner.clone();
        guarded_promise(async move {
            inner.ensure_open().map_err(|error| error_to_js(&error))?;
            let books = inner.books.module().await?;
            let book = JsFuture::from(books.set_current_page(&book_id, &page)).await?;
            inner.sync.page_turned(&book);
            Ok(book)
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
        self.on_books(move |books| books.page(&book_id, &number))
    }

    /// How a book's vector index came to be in this session: `none` (searched
    /// exactly), `building` (in the worker; searched exactly meanwhile),
    /// `built`, or `snapshot` (read back, not rebuilt). Loads the book.
    #[wasm_bindgen(js_name = indexSource, unchecked_return_type = "Promise<'none' | 'building' | 'built' | 'snapshot'>")]
    pub fn index_source(
        &self,
        #[wasm_bindgen(js_name = "bookId", unchecked_param_type = "string")] book_id: JsValue,
    ) -> Promise {
        self.on_books(move |books| books.index_source(&book_id))
    }

    /// The stored book as one versioned binary bundle (record, chunks,
    /// vectors, index snapshot) that `importBook` reads, here or elsewhere.
    #[wasm_bindgen(js_name = exportBook, unchecked_return_type = "Promise<Uint8Array>")]
    pub fn export_book(
        &self,
        #[wasm_bindgen(js_name = "bookId", unchecked_param_type = "string")] book_id: JsValue,
    ) -> Promise {
        self.on_books(move |books| books.export_book(&book_id))
    }

    /// Stores the book of an `exportBook` bundle (a `Uint8Array` or
    /// `ArrayBuffer`) as it was exported, id and reader's page included;
    /// checked first, nothing stored on failure.
    #[wasm_bindgen(js_name = importBook, unchecked_return_type = "Promise<Book>")]
    pub fn import_book(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | ArrayBuffer")] bundle: JsValue,
    ) -> Promise {
        self.on_books(move |books| books.import_book(&bundle))
    }

    /// Searches books: `{ bookIds?, k = 5, maxPage?, mode? }`; with `maxPage`, no result ends after it.
    #[wasm_bindgen(unchecked_return_type = "Promise<SearchResult[]>")]
    pub fn search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        options: Option<SearchOptionsInput>,
    ) -> Promise {
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        self.on_books(move |books| books.search(&query, &options))
    }
}
