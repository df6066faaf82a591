//! Books and retrieval natively: ingestion of the test book, page-bounded
//! search, index agreement with exact search on real embeddings, snapshots,
//! deletion, embedder mismatch, abort, and book conversations.

use crate::support::harness::{books, tools, Builder};
use crate::support::shared_fixtures;
use crate::support::unicode_books;

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::block_on;
use lectern::agent::{AgentConfig, RetrievalStrategy};
use lectern::domain::{NewConversation, Role};
use lectern::events::EventKind;
use lectern::provider::scripted::ScriptedTurn;
use lectern::retrieval::embed::hashed::HashedEmbedder;
use lectern::retrieval::index::builder::BuildHere;
use lectern::retrieval::index::{settings::IndexSettings, VectorIndex};
use lectern::retrieval::library::{BookSource, IndexSource, Library, NewBook, SearchOptions};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::retrieval::vectors::vector::exact_top_k;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::{BookStore, MemoryStore};
use serde_json::json;
use shared_fixtures::{minilm, thursday};

/// A library that indexes books of 1,024 chunks or more (the default is
/// 8,192), so that the Thursday fixture in small chunks is indexed.
fn library(store: Rc<MemoryStore>, chunking: ChunkSettings) -> Library {
    Library::new(
        store,
        Rc::new(HashedEmbedder::default()),
        Rc::new(ManualClock::new(1.0e12)),
        chunking,
    )
    .with_index_settings(IndexSettings::with_min_vectors(1024))
    .with_index_builder(Rc::new(BuildHere))
}

fn add(library: &Library, title: &str, source: BookSource) -> lectern::domain::Book {
    let new = NewBook {
        title: title.into(),
        author: Some("G. K. Chesterton".into()),
        source,
    };
    block_on(library.add_book(new, &|_| {}, &CancelToken::new())).expect("ingests")
}

fn search(
    library: &Library,
    query: &str,
    k: usize,
    max_page: Option<u32>,
) -> Vec<lectern::retrieval::library::SearchResult> {
    let options = SearchOptions {
        book_ids: None,
        k: Some(k),
        max_page,
        mode: None,
    };
    block_on(library.search(query, &options, &CancelToken::new())).expect("searches")
}

#[test]
fn the_test_book_is_ingested_with_pages_chapters_and_progress() {
    let Some(text) = thursday() else { return };
    let store = Rc::new(MemoryStore::new());
    let library = library(store.clone(), ChunkSettings::default());
    let phases = RefCell::new(Vec::new());
    let new = NewBook {
        title: "The Man Who Was Thursday".into(),
        author: None,
        source: BookSource::Text(text.clone()),
    };
    let book = block_on(library.add_book(
        new,
        &|p| phases.borrow_mut().push((p.phase, p.done, p.total)),
        &CancelToken::new(),
    ))
    .unwrap();
    assert!(
        book.page_count >= 150,
        "about 2,000 characters a page: {}",
        book.page_count
    );
    assert_eq!(book.chapters.len(), 15, "{:?}", book.chapters);
    assert_eq!(book.chapters[0], "CHAPTER I THE TWO POETS OF SAFFRON PARK");
    let phases = phases.borrow();
    assert_eq!(phases.first().unwrap().0, "chunking");
    assert!(phases.iter().any(|p| p.0 == "embedding"));
    assert_eq!(*phases.last().unwrap(), ("indexing", 1, 1));
    let (chunks, vectors) = block_on(store.book_content(&book.id)).unwrap();
    assert_eq!(chunks.len(), book.chunk_count as usize);
    assert_eq!(vectors.len(), chunks.len());
    assert!(chunks.windows(2).all(|w| w[0].start_page <= w[1].start_page));
}

#[test]
fn test_questions_find_their_passages() {
    let Some(text) = thursday() else { return };
    let library = library(Rc::new(MemoryStore::new()), ChunkSettings::default());
    add(&library, "Thursday", BookSource::Text(text));
    let cases = [
        (
            "Lucian Gregory the anarchic poet with red hair in Saffron Park",
            "CHAPTER I ",
        ),
        (
            "Gabriel Syme joins the philosophical policemen at Scotland Yard",
            "CHAPTER IV ",
        ),
        ("the great Sunday, the President of the Council", "CHAPTER"),
    ];
    for (query, chapter) in cases {
        let results = search(&library, query, 5, None);
        assert!(
            results
                .iter()
                .any(|r| r.chapter.as_deref().is_some_and(|c| c.starts_with(chapter))),
            "{query}: {:?}",
            results.iter().map(|r| r.chapter.clone()).collect::<Vec<_>>()
        );
    }
    let first = &search(&library, "Lucian Gregory red hair", 1, None)[0];
    assert!(first.text.contains("Gregory"), "{}", first.text);
}

#[test]
fn unicode_books_ingest_and_search_as_text_and_epub() {
    // Small pages and chunks, so that every text is cut many times.
    let chunking = ChunkSettings {
        chunk_chars: 100,
        overlap_chars: 40,
        page_chars: 200,
    };
    for book in unicode_books::books() {
        for (kind, source) in [
            ("text", BookSource::Text(book.text.to_owned())),
            ("epub", BookSource::Epub(book.epub.to_vec())),
        ] {
            let store = Rc::new(MemoryStore::new());
            let library = library(store.clone(), chunking);
            let added = add(&library, book.name, source);
            let (chunks, _) = block_on(store.book_content(&added.id)).unwrap();
            assert!(chunks.len() >= 3, "{} {kind}: {} chunks", book.name, chunks.len());
            for chunk in &chunks {
                let chars = chunk.text.chars().count();
                assert!(
                    chars <= 100,
                    "{} {kind}: {chars} characters: {}",
                    book.name,
                    chunk.text
                );
            }
            for (query, passage, chapter) in book.searches {
                let best = &search(&library, query, 1, None)[0];
                assert!(
                    best.text.contains(passage),
                    "{} {kind}: {query:?} found {:?}",
                    book.name,
                    best.text
                );
                if kind == "epub" {
                    assert_eq!(best.chapter.as_deref(), Some(*chapter), "{} {query}", book.name);
                }
            }
        }
    }
}

#[test]
fn page_bounds_are_never_crossed_and_top_k_is_always_full() {
    let Some(text) = thursday() else { return };
    // Small chunks: enough of them for the HNSW index, so both search paths are exercised.
    let chunking = ChunkSettings {
        chunk_chars: 250,
        overlap_chars: 50,
        page_chars: 2000,
    };
    let store = Rc::new(MemoryStore::new());
    let library = library(store.clone(), chunking);
    let book = add(&library, "Thursday", BookSource::Text(text));
    let (chunks, _) = block_on(store.book_content(&book.id)).unwrap();
    assert!(
        chunks.len() >= 1024,
        "index path covered: {} chunks",
        chunks.len()
    );
    let queries = [
        "Sunday",
        "the anarchists' council",
        "a duel with swords",
        "the Marquis",
        "a balloon",
        "Professor de Worms",
    ];
    for bound in [1, 2, 5, 13, 30, 60, 90, 120, book.page_count - 1, book.page_count] {
        let eligible = chunks.iter().filter(|c| c.end_page <= bound).count();
        for query in queries {
            for k in [1, 5, 20] {
                let results = search(&library, query, k, Some(bound));
                assert_eq!(results.len(), k.min(eligible), "bound {bound}, k {k}, {query}");
                assert!(
                    results.iter().all(|r| r.end_page <= bound),
                    "bound {bound}: a spoiler"
                );
                assert!(results.windows(2).all(|w| w[0].score >= w[1].score), "best first");
            }
        }
    }
}

#[test]
fn the_index_agrees_with_exact_search_on_real_embeddings() {
    let Some(vectors) = minilm(5_000) else { return };
    let (corpus, queries) = {
        let mut corpus = lectern::retrieval::vectors::vector::VectorSet::new(384);
        let mut queries = lectern::retrieval::vectors::vector::VectorSet::new(384);
        for i in 0..vectors.len() {
            if i % 50 == 0 {
                queries.push(vectors.get(i))
            } else {
                corpus.push(vectors.get(i))
            }
        }
        (corpus, queries)
    };
    let index = VectorIndex::build(&corpus, IndexSettings::default());
    let mut found = 0;
    for q in 0..queries.len() {
        let exact: Vec<usize> = exact_top_k(&corpus, queries.get(q), 10, |_| true)
            .iter()
            .map(|h| h.index)
            .collect();
        let approx = index
            .search(&corpus, queries.get(q), 10, |_| true)
            .expect("full top 10");
        found += approx.iter().filter(|h| exact.contains(&h.index)).count();
    }
    let recall = found as f64 / (queries.len() * 10) as f64;
    eprintln!("recall@10 on {} MiniLM vectors: {recall:.3}", corpus.len());
    assert!(recall >= 0.95, "recall@10 {recall}");
}

#[test]
fn a_reload_reads_the_snapshot_instead_of_rebuilding() {
    let Some(text) = thursday() else { return };
    let chunking = ChunkSettings {
        chunk_chars: 250,
        overlap_chars: 50,
        page_chars: 2000,
    };
    let store = Rc::new(MemoryStore::new());
    let first = library(store.clone(), chunking);
    let book = add(&first, "Thursday", BookSource::Text(text));
    assert_eq!(
        block_on(first.load(&book.id)).unwrap().index_source,
        IndexSource::Built
    );
    assert!(block_on(store.index_snapshot(&book.id)).unwrap().is_some());
    let before = search(&first, "Sunday", 10, Some(100));

    let reopened = library(store.clone(), chunking);
    let loaded = block_on(reopened.load(&book.id)).unwrap();
    assert_eq!(loaded.index_source, IndexSource::Snapshot, "loaded, not rebuilt");
    assert_eq!(search(&reopened, "Sunday", 10, Some(100)), before);
}

#[test]
fn deleting_a_book_removes_everything_of_it() {
    let store = Rc::new(MemoryStore::new());
    let library = library(store.clone(), ChunkSettings::default());
    let keep = add(
        &library,
        "Keep",
        BookSource::Pages(vec!["A quiet garden.".into(), "Tea at noon.".into()]),
    );
    let gone = add(&library, "Gone", BookSource::Pages(vec!["A loud street.".into()]));
    block_on(library.delete_book(&gone.id)).unwrap();
    let remaining: Vec<String> = block_on(library.books())
        .unwrap()
        .into_iter()
        .map(|b| b.id)
        .collect();
    assert_eq!(remaining, std::slice::from_ref(&keep.id));
    assert_eq!(
        block_on(store.book_content(&gone.id)).unwrap_err().name(),
        "NotFoundError"
    );
    assert_eq!(block_on(store.index_snapshot(&gone.id)).unwrap(), None);
    let options = SearchOptions {
        book_ids: Some(vec![gone.id.clone()]),
        k: None,
        max_page: None,
        mode: None,
    };
    assert_eq!(
        block_on(library.search("street", &options, &CancelToken::new()))
            .unwrap_err()
            .name(),
        "NotFoundError"
    );
    assert!(search(&library, "street garden", 5, None)
        .iter()
        .all(|r| r.book_id == keep.id));
}

#[test]
fn bad_input_mismatched_embedders_and_aborts_leave_nothing_behind() {
    let store = Rc::new(MemoryStore::new());
    let library = library(store.clone(), ChunkSettings::default());
    let empty = NewBook {
        title: "Empty".into(),
        author: None,
        source: BookSource::Text("  \n ".into()),
    };
    assert_eq!(
        block_on(library.add_book(empty, &|_| {}, &CancelToken::new()))
            .unwrap_err()
            .name(),
        "ConfigError"
    );
    let untitled = NewBook {
        title: " ".into(),
        author: None,
        source: BookSource::Text("Text.".into()),
    };
    assert_eq!(
        block_on(library.add_book(untitled, &|_| {}, &CancelToken::new()))
            .unwrap_err()
            .name(),
        "ConfigError"
    );
    let cancel = CancelToken::new();
    cancel.cancel();
    let aborted = NewBook {
        title: "Aborted".into(),
        author: None,
        source: BookSource::Text("Some text here.".into()),
    };
    assert_eq!(
        block_on(library.add_book(aborted, &|_| {}, &cancel))
            .unwrap_err()
            .name(),
        "AbortError"
    );
    assert!(
        block_on(library.books()).unwrap().is_empty(),
        "nothing half-written"
    );

    let book = add(
        &library,
        "Hashed",
        BookSource::Text("The garden of the poets.".into()),
    );
    let other = Library::new(
        store,
        Rc::new(HashedEmbedder::new(256)),
        Rc::new(ManualClock::new(0.0)),
        ChunkSettings::default(),
    );
    let options = SearchOptions {
        book_ids: Some(vec![book.id]),
        k: None,
        max_page: None,
        mode: None,
    };
    let err = block_on(other.search("garden", &options, &CancelToken::new())).unwrap_err();
    assert_eq!(err.name(), "EmbedderMismatchError", "{err}");
}

/// An agent with `strategy` over the three-page book, the reader on page 2; and the book's id.
fn book_agent(strategy: RetrievalStrategy, turns: Vec<ScriptedTurn>) -> (Builder, String) {
    let config = AgentConfig {
        retrieval: strategy,
        ..AgentConfig::default()
    };
    books::book_agent(config, books::thursday_pages(), 2, turns)
}

#[test]
fn a_book_conversation_searches_only_up_to_the_readers_page() {
    let (builder, book_id) = book_agent(
        RetrievalStrategy::ToolUse,
        vec![
            ScriptedTurn::tools(&[("search_book", r#"{"query":"Syme policeman twist Sunday"}"#)]),
            ScriptedTurn::text("So far, Syme met Gregory."),
            ScriptedTurn::text("Still no spoilers."),
        ],
    );
    let h = builder.title("Reading").book(&book_id).build();
    let reply = h.send("Who is Syme really?").unwrap();
    assert_eq!(reply.text, "So far, Syme met Gregory.");
    let result = reply.tool_calls[0].result.clone().unwrap();
    assert!(
        result.starts_with("[Pages 1-1]\n") || result.starts_with("[Pages 2-2]\n"),
        "{result}"
    );
    assert!(
        !result.contains("policeman"),
        "page 3 is past the reader: {result}"
    );
    let details = h.events().into_iter().find_map(|e| match e {
        EventKind::ToolResult { details: Some(d), .. } => Some(d),
        _ => None,
    });
    let details = details.expect("search_book reports details");
    assert_eq!(details["query"], "Syme policeman twist Sunday");
    assert_eq!(details["resultCount"], 2);
    let first_request = &h.model.requests()[0];
    assert_eq!(
        first_request
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["search_book"]
    );
    let system = first_request.system.as_deref().unwrap();
    assert!(
        system.contains("reading \"Thursday\" by G. K. Chesterton and is on page 2 of 3"),
        "{system}"
    );
    // Persisted, and in the next turn's context.
    assert_eq!(
        h.roles(),
        [Role::User, Role::Assistant, Role::ToolResult, Role::Assistant]
    );
    h.send("And then?").unwrap();
    let third = &h.model.requests()[2];
    assert!(third
        .messages
        .iter()
        .any(|m| m.role == Role::ToolResult && m.content == result));

    h.create_conversation(NewConversation::default());
    let missing = block_on(h.agent.create_conversation(NewConversation {
        title: None,
        book_id: Some("nope".into()),
    }));
    assert_eq!(missing.unwrap_err().name(), "NotFoundError");
}

#[test]
fn always_retrieve_puts_bounded_passages_in_the_context_and_keeps_the_other_tools() {
    let (builder, book_id) = book_agent(
        RetrievalStrategy::AlwaysRetrieve,
        vec![ScriptedTurn::text("From what you've read...")],
    );
    let clock = tools::answering("current_datetime", "The date and time now.", json!("noon"));
    let h = builder.tool(clock).book(&book_id).build();
    h.send("What about Gregory and Syme?").unwrap();
    let request = &h.model.requests()[0];
    // The passages are searched for the model: search_book is not offered, the other tools are.
    let offered: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(offered, ["current_datetime"]);
    let system = request.system.as_deref().unwrap();
    assert!(
        system.contains("## Passages from the book (up to page 2)"),
        "{system}"
    );
    // The reader's pages (1 and 2, under one header) hold the answer: no passage repeats them.
    assert!(system.contains("[Pages 1-2]\n"), "{system}");
    assert!(system.contains("Gregory took Syme"), "{system}");
    assert_eq!(system.matches("Gregory took Syme").count(), 1, "{system}");
    assert!(!system.contains("policeman"));
}

/// What a local model may read ahead (`Lectern.systemPrompt`) is the start of the system
/// message the turn then sends, up to the passages the question finds.
#[test]
fn the_system_prompt_ahead_of_a_turn_is_the_start_of_its_system_message() {
    let (builder, book_id) = book_agent(
        RetrievalStrategy::AlwaysRetrieve,
        vec![ScriptedTurn::text("From what you've read...")],
    );
    let h = builder.book(&book_id).build();
    let ahead = block_on(h.agent.system_prompt(&h.conversation)).unwrap();
    assert!(ahead.contains("is on page 2 of 3"), "{ahead}");
    assert!(!ahead.contains("## Passages"), "{ahead}");
    h.send("What about Gregory and Syme?").unwrap();
    let sent = h.model.requests()[0].system.clone().unwrap();
    assert!(sent.starts_with(&ahead), "{ahead}\n---\n{sent}");
    assert!(
        sent[ahead.len()..].starts_with("\n\n## Passages from the book"),
        "{sent}"
    );
    let missing = block_on(h.agent.system_prompt("nope")).unwrap_err();
    assert_eq!(missing.name(), "NotFoundError");
}
