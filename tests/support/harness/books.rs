//! Agents over a small book: "Thursday" in a few short pages, in a library
//! over the agent's own memory store (hashed embeddings, the agent's clock).

use std::rc::Rc;

use futures::executor::block_on;
use lectern::agent::AgentConfig;
use lectern::provider::scripted::ScriptedTurn;
use lectern::retrieval::embed::hashed::HashedEmbedder;
use lectern::retrieval::library::{BookSource, Library, NewBook};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::MemoryStore;

use super::{Builder, TestAgent};

/// Three pages of Thursday in brief, the last a spoiler.
pub fn thursday_pages() -> Vec<String> {
    vec![
        "Syme met the poet Gregory in the garden of Saffron Park.".to_string(),
        "Gregory took Syme to a secret meeting under a tavern.".to_string(),
        "The twist: Sunday was never what he seemed, and Syme was a policeman all along.".to_string(),
    ]
}

/// A book titled "Thursday" to put in an agent's library.
pub struct Book {
    /// Its pages.
    pub pages: Vec<String>,
    /// Its author, if it names one.
    pub author: Option<String>,
    /// The largest passage it is cut into, in characters.
    pub chunk_chars: usize,
}

impl Book {
    /// "Thursday" by G. K. Chesterton made of `pages`, in passages of at most
    /// 100 characters (one a page for [`thursday_pages`]).
    pub fn thursday(pages: Vec<String>) -> Book {
        Book {
            pages,
            author: Some("G. K. Chesterton".into()),
            chunk_chars: 100,
        }
    }

    /// Adds the book to a library over `builder`'s store and clock (hashed
    /// embeddings), the reader on `current_page`, and gives the agent that
    /// library. The builder (bind its conversation with `.book(&id)`), and
    /// the book's id.
    pub fn shelve<M: ?Sized>(
        self,
        builder: Builder<MemoryStore, M>,
        current_page: u32,
    ) -> (Builder<MemoryStore, M>, String) {
        let chunking = ChunkSettings {
            chunk_chars: self.chunk_chars,
            overlap_chars: 0,
            page_chars: 2000,
        };
        let library = Rc::new(Library::new(
            builder.store.clone(),
            Rc::new(HashedEmbedder::default()),
            Rc::new(builder.clock.clone()),
            chunking,
        ));
        let new = NewBook {
            title: "Thursday".into(),
            author: self.author,
            source: BookSource::Pages(self.pages),
        };
        let book = block_on(library.add_book(new, &|_| {}, &CancelToken::new())).expect("ingests");
        block_on(library.set_current_page(&book.id, current_page)).unwrap();
        (builder.library(library), book.id)
    }
}

/// A builder for an agent with `config` over a [`ManualClock`] at 1e12 ms whose
/// library holds [`Book::thursday`] made of `pages`, the reader on
/// `current_page`; and the book's id.
pub fn book_agent(
    config: AgentConfig,
    pages: Vec<String>,
    current_page: u32,
    turns: Vec<ScriptedTurn>,
) -> (Builder, String) {
    let builder = TestAgent::builder(turns)
        .config(config)
        .clock(ManualClock::new(1.0e12));
    Book::thursday(pages).shelve(builder, current_page)
}
