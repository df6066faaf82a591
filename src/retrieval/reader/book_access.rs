//! What a conversation about a book asks of the books: the book, a search
//! bounded by the reader's page, and the reader's context for a question.
//! [`Library`](crate::retrieval::library::Library) answers it where it lives; the page's
//! module answers it through the books module it loads on first use.

use futures::future::LocalBoxFuture;

use crate::domain::{Book, Source};
use crate::error::Result;
use crate::retrieval::library::search_options::{SearchOptions, SearchResult};
use crate::retrieval::reader::context::ReaderContextPlan;
use crate::retrieval::reader::quotes::QuotedAnswer;
use crate::runtime::cancel::CancelToken;

/// The books a conversation may be about.
pub trait BookAccess {
    /// The book with this id; `NotFound` if there is none.
    fn book<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Book>>;

    /// The passages best matching `query`, as [`Library::search`](crate::retrieval::library::Library::search).
    fn search<'a>(
        &'a self,
        query: &'a str,
        options: &'a SearchOptions,
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<SearchResult>>>;

    /// The context for `question` at the reader's page, as
    /// [`Library::reader_context`](crate::retrieval::library::Library::reader_context).
    fn reader_context<'a>(
        &'a self,
        book_id: &'a str,
        question: &'a str,
        plan: &'a ReaderContextPlan,
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Source>>>;

    /// The quoted answer to `question` from `sources` at the book's reader's
    /// page ([`quoted_answer`](crate::retrieval::reader::quotes::quoted_answer)): where the books
    /// live, so that the page's module does not carry the quoting code.
    fn quoted_answer<'a>(
        &'a self,
        book_id: &'a str,
        question: &'a str,
        sources: &'a [Source],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<QuotedAnswer>>;
}
