//! The quoted answer never invents and never reads ahead (issue 46): over
//! many books (Thursday, the Unicode books, generated prose) and questions
//! (the books' own words, drawn at random), at a random reader's page, every
//! quoted sentence is the book's text — whitespace aside — up to the end
//! of the reader's page, and names that page range or an earlier one.

use futures::executor::block_on;
use proptest::prelude::*;

use crate::support::prop_config::config;
use crate::support::reader_eval::{collapsed, library};
use crate::support::shared_fixtures;
use crate::support::unicode_books::books;

use lectern::retrieval::library::Library;
use lectern::retrieval::reader::book_access::BookAccess;
use lectern::retrieval::reader::context::ReaderContextPlan;
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::runtime::cancel::CancelToken;

/// One book in a library of its own, with its pages' texts.
struct Shelved {
    library: Library,
    book: String,
    pages: Vec<String>,
    words: Vec<String>,
}

fn shelve(text: &str) -> Shelved {
    let chunking = ChunkSettings {
        page_chars: 600,
        ..ChunkSettings::default()
    };
    let (library, book) = library(text, None, chunking);
    let count = block_on(library.book(&book)).expect("the book").page_count;
    let pages = (1..=count)
        .map(|n| block_on(library.page(&book, n)).expect("a page").text)
        .collect();
    let words = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() > 2)
        .map(str::to_owned)
        .collect();
    Shelved {
        library,
        book,
        pages,
        words,
    }
}

/// Generated prose: sentences of words from a small vocabulary, names among them.
fn prose() -> String {
    let words = [
        "the",
        "poet",
        "Gregory",
        "walked",
        "with",
        "Syme",
        "under",
        "lamp",
        "because",
        "anarchy",
        "was",
        "a",
        "dream",
        "Sunday",
        "laughed",
        "in",
        "garden",
        "where",
        "policeman",
        "secret",
        "Dr.",
        "Bull",
        "said",
    ];
    (0..400)
        .map(|i| {
            let n = 5 + (i * 7) % 9;
            let sentence: Vec<&str> = (0..n).map(|j| words[(i * 13 + j * 5) % words.len()]).collect();
            let mut s = sentence.join(" ");
            s.push(if i % 5 == 0 { '?' } else { '.' });
            if i % 9 == 0 {
                s = format!("\"{s}\" he said.");
            }
            if i % 11 == 0 {
                s.push_str("\n\n");
            }
            s
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn shelves() -> Vec<Shelved> {
    let mut texts: Vec<String> = books().into_iter().map(|b| b.text.to_owned()).collect();
    texts.push(prose());
    if let Some(thursday) = shared_fixtures::thursday() {
        // A third of it keeps the property fast; the pages are still many.
        let cut = thursday
            .char_indices()
            .nth(thursday.chars().count() / 3)
            .map_or(0, |(i, _)| i);
        texts.push(thursday[..cut].to_owned());
    }
    texts.iter().map(|t| shelve(t)).collect()
}

thread_local! {
    static SHELVES: Vec<Shelved> = shelves();
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn every_quote_is_the_books_text_up_to_the_readers_page(
        which in any::<prop::sample::Index>(),
        page in any::<prop::sample::Index>(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..5),
        kind in prop::sample::select(vec!["Who is", "Why did", "Where was", "What did", ""]),
    ) {
        SHELVES.with(|shelves| {
            let shelf = which.get(shelves);
            let reader_page = page.index(shelf.pages.len()) as u32 + 1;
            block_on(shelf.library.set_current_page(&shelf.book, reader_page)).expect("sets the page");
            let asked: Vec<&str> = picks.iter().map(|p| p.get(&shelf.words).as_str()).collect();
            let question = format!("{kind} {}?", asked.join(" "));
            let plan = ReaderContextPlan::default();
            let sources = block_on(shelf.library.reader_context(&shelf.book, &question, &plan, &CancelToken::new()))
                .expect("a context");
            let cancel = CancelToken::new();
            let answer = block_on(BookAccess::quoted_answer(&shelf.library, &shelf.book, &question, &sources, &cancel))
                .expect("a quoted answer");
            let read = collapsed(&shelf.pages[..reader_page as usize].concat());
            for quote in &answer.quotes {
                prop_assert!(read.contains(&quote.text), "{question:?} at p. {reader_page}: {:?}", quote.text);
                prop_assert!(quote.end_page <= reader_page && quote.start_page <= quote.end_page);
                // The pages it names hold it.
                let named = collapsed(&shelf.pages[quote.start_page as usize - 1..quote.end_page as usize].concat());
                prop_assert!(named.contains(&quote.text), "{} names pages that do not hold it", quote.line());
            }
            prop_assert!(answer.quotes.len() <= 3);
            Ok(())
        })?;
    }
}
