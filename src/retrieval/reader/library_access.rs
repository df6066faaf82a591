//! The library, as the books a conversation is about.

use futures::future::LocalBoxFuture;

use crate::domain::{Book, Source};
use crate::error::Result;
use crate::retrieval::library::search_options::{SearchOptions, SearchResult};
use crate::retrieval::library::Library;
use crate::retrieval::reader::book_access::BookAccess;
use crate::retrieval::reader::context::ReaderContextPlan;
use crate::retrieval::reader::quotes::{place_quotes, quoted_answer, QuotedAnswer};
use crate::runtime::cancel::CancelToken;

impl BookAccess for Library {
    fn book<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Book>> {
        Box::pin(Library::book(self, id))
    }

    fn search<'a>(
        &'a self,
        query: &'a str,
        options: &'a SearchOptions,
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<SearchResult>>> {
        Box::pin(Library::search(self, query, options, cancel))
    }

    fn reader_context<'a>(
        &'a self,
        book_id: &'a str,
        question: &'a str,
        plan: &'a ReaderContextPlan,
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Source>>> {
        Box::pin(Library::reader_context(self, book_id, question, plan, cancel))
    }

    fn quoted_answer<'a>(
        &'a self,
        book_id: &'a str,
        question: &'a str,
        sources: &'a [Source],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<QuotedAnswer>> {
        Box::pin(cancel.run(async move {
            let page = Library::book(self, book_id).await?.current_page;
            let answer = quoted_answer(question, sources, page);
            // The pages of the quotes from passages of several pages, to put each on its own.
            let mut texts: Vec<(u32, String)> = Vec::new();
            for quote in answer.quotes.iter().filter(|q| q.start_page < q.end_page) {
                for number in quote.start_page..=quote.end_page {
                    if texts.iter().all(|(n, _)| *n != number) {
                        if let Some(stored) = self.store.page(book_id, number).await? {
                            texts.push((number, stored.text));
                        }
                    }
                }
            }
            Ok(place_quotes(answer, &texts, page))
        }))
    }
}
