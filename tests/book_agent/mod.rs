//! A book conversation's agent over a small book of short pages: the memory
//! store, a hashed embedder, a scripted model and a manual clock.

use std::rc::Rc;

use futures::executor::block_on;
use lectern::agent::{Agent, AgentConfig};
use lectern::cancel::CancelToken;
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::retrieval::chunk::ChunkSettings;
use lectern::retrieval::hashed::HashedEmbedder;
use lectern::retrieval::library::{BookSource, Library, NewBook};
use lectern::storage::MemoryStore;
use lectern::time::ManualClock;

/// What [`book_agent`] builds.
/// (Each test binary uses some of the fields.)
pub struct BookAgent {
    pub agent: Agent,
    #[allow(dead_code)]
    pub model: Rc<ScriptedModel>,
    #[allow(dead_code)]
    pub library: Rc<Library>,
    pub book_id: String,
    #[allow(dead_code)]
    pub store: Rc<MemoryStore>,
}

/// Three pages of Thursday in brief, the last a spoiler.
pub fn thursday_pages() -> Vec<String> {
    vec![
        "Syme met the poet Gregory in the garden of Saffron Park.".to_string(),
        "Gregory took Syme to a secret meeting under a tavern.".to_string(),
        "The twist: Sunday was never what he seemed, and Syme was a policeman all along.".to_string(),
    ]
}

/// An agent with `config` whose library holds "Thursday" by G. K. Chesterton
/// made of `pages` (one chunk each), the reader on `current_page`.
pub fn book_agent(
    config: AgentConfig,
    pages: Vec<String>,
    current_page: u32,
    turns: Vec<ScriptedTurn>,
) -> BookAgent {
    let store = Rc::new(MemoryStore::new());
    let clock = Rc::new(ManualClock::new(1.0e12));
    let chunking = ChunkSettings {
        chunk_chars: 100,
        overlap_chars: 0,
        page_chars: 2000,
    };
    let library = Rc::new(Library::new(
        store.clone(),
        Rc::new(HashedEmbedder::default()),
        clock.clone(),
        chunking,
    ));
    let new = NewBook {
        title: "Thursday".into(),
        author: Some("G. K. Chesterton".into()),
        source: BookSource::Pages(pages),
    };
    let book = block_on(library.add_book(new, &|_| {}, &CancelToken::new())).expect("ingests");
    block_on(library.set_current_page(&book.id, current_page)).unwrap();
    let model = Rc::new(ScriptedModel::new(turns));
    let agent = Agent::new(store.clone(), model.clone(), clock, config)
        .with_library(library.clone())
        .unwrap();
    BookAgent {
        agent,
        model,
        library,
        book_id: book.id,
        store,
    }
}
