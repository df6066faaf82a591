//! Books in headless Chromium: ingestion into IndexedDB with progress, the
//! page-bounded search, a big book searched exactly after a reopen (no worker here, so no index), book
//! conversations through the mock model, deletion, the embedders, and a book
//! without an embedder searched lexically, its index read back from IndexedDB.

use crate::support::unicode_books;
use crate::support::web;

use js_sys::{Function, Reflect};
use lectern::retrieval::lexical::{encode, LexicalIndex};
use lectern::storage::BookStore;
use lectern::web::IndexedDbStore;
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web::{js, json as to_json, open_with, reject, resolve, unique, MockSession};

fn provider(session: &MockSession) -> Value {
    json!({ "kind": "openai", "baseUrl": session.base_url(), "model": "gpt-4o-mini", "apiKey": "k" })
}

/// `n` one-sentence pages; page `i` mentions a distinct word so searches can target pages.
fn pages(n: usize) -> Vec<String> {
    (1..=n)
        .map(|i| {
            format!(
                "On page {i} the word marker{i} appears near the lighthouse of chapter {}.",
                i / 100
            )
        })
        .collect()
}

#[wasm_bindgen_test]
async fn ingestion_search_bounds_and_a_reopen_without_a_worker() {
    let session = MockSession::new();
    let db = unique("books");
    // The hashed embedder: this test is about vectors (the embedding phase, a full top-k of them).
    let options = json!({ "dbName": db, "provider": provider(&session), "embedder": { "kind": "hashed" }, "retrieval": { "chunkChars": 100, "overlapChars": 0 } });
    let opened = open_with(options.clone()).await;
    let progress = js_sys::Array::new();
    let on_progress =
        Function::new_with_args("p", "this.push(p.phase + ':' + p.done + '/' + p.total);").bind0(&progress);
    let add_options = js(json!({}));
    Reflect::set(&add_options, &"onProgress".into(), &on_progress).unwrap();
    let book = to_json(
        &resolve(opened.lectern.add_book(
            js(json!({ "title": "Lighthouse", "author": "Test", "pages": pages(1100) })).unchecked_into(),
            Some(add_options.unchecked_into()),
        ))
        .await,
    );
    assert_eq!(book["pageCount"], 1100);
    assert_eq!(book["chunkCount"], 1100);
    assert_eq!(book["currentPage"], 1);
    // Stored lexical-first: searched with BM25 at once, its vectors computed behind it.
    assert_eq!(
        (book["embedder"].as_str(), book["dimensions"].as_u64()),
        (Some("lectern-hashed-v1/1024"), Some(0))
    );
    let id = book["id"].as_str().unwrap().to_owned();
    let early = resolve(opened.lectern.search("marker500".into(), None)).await;
    assert_eq!(
        to_json(&early)[0]["startPage"],
        500,
        "found lexically before the vectors"
    );
    let book = web::embedded_book(&opened.lectern, &id).await;
    assert_eq!(book["dimensions"], 1024);
    let phases: Vec<String> = progress.iter().map(|p| p.as_string().unwrap()).collect();
    assert_eq!(phases.first().map(String::as_str), Some("chunking:0/1100"));
    assert_eq!(phases.last().map(String::as_str), Some("embedding:1100/1100"));
    assert!(
        !phases.iter().any(|p| p.starts_with("indexing")),
        "no index in a page: {phases:?}"
    );
    assert!(opened
        .events
        .borrow()
        .iter()
        .any(|e| e["type"] == "ingestProgress" && e["phase"] == "embedding"));
    // The test runner does not serve `lectern_worker.js`: the worker cannot start, so the
    // book is ingested in the page, which never builds an index (tests/js/worker.test.mjs
    // covers the worker's index and its snapshot).
    assert_eq!(
        to_json(&resolve(opened.lectern.index_source(id.clone().into())).await),
        "none"
    );

    for bound in [1u32, 7, 450, 1100] {
        let results = to_json(
            &resolve(opened.lectern.search(
                "marker500 lighthouse".into(),
                Some(js(json!({ "k": 10, "maxPage": bound })).unchecked_into()),
            ))
            .await,
        );
        let results = results.as_array().unwrap();
        assert_eq!(results.len(), 10.min(bound as usize), "bound {bound}");
        assert!(results
            .iter()
            .all(|r| r["endPage"].as_u64().unwrap() <= bound as u64));
    }
    let best = to_json(&resolve(opened.lectern.search("marker500".into(), None)).await);
    assert_eq!(best[0]["startPage"], 500);
    resolve(opened.lectern.close()).await;

    let reopened = open_with(options).await;
    // `building` while the new instance tries its worker, then `none`: never built on the page.
    let mut source = Value::Null;
    for _ in 0..200 {
        source = to_json(&resolve(reopened.lectern.index_source(id.clone().into())).await);
        if source != "building" {
            break;
        }
        web::sleep(50).await;
    }
    assert_eq!(source, "none", "not built on the page at open either");
    let again = to_json(&resolve(reopened.lectern.search("marker500".into(), None)).await);
    assert_eq!(again, best);
    let books = to_json(&resolve(reopened.lectern.books()).await);
    assert_eq!(books[0]["title"], "Lighthouse");
    resolve(reopened.lectern.delete_book(id.clone().into())).await;
    assert!(to_json(&resolve(reopened.lectern.books()).await)
        .as_array()
        .unwrap()
        .is_empty());
    let options = js(json!({ "bookIds": [id] }));
    let error = reject(
        reopened
            .lectern
            .search("marker".into(), Some(options.unchecked_into())),
    )
    .await;
    assert_eq!(String::from(error.name()), "NotFoundError");
    resolve(reopened.lectern.close()).await;
    IndexedDbStore::delete_database(&db).await.unwrap();
}

#[wasm_bindgen_test]
async fn japanese_chinese_arabic_emoji_and_no_break_space_books_ingest_and_search() {
    let session = MockSession::new();
    let db = unique("unicode-books");
    let retrieval = json!({ "chunkChars": 100, "overlapChars": 40, "pageChars": 200 });
    let embedder = json!({ "kind": "hashed" });
    let opened = open_with(
        json!({ "dbName": db, "provider": provider(&session), "embedder": embedder, "retrieval": retrieval }),
    )
    .await;
    for book in unicode_books::books() {
        for kind in ["text", "epub"] {
            let input = js(json!({ "title": format!("{} ({kind})", book.name) }));
            let content: JsValue = match kind {
                "text" => book.text.into(),
                _ => js_sys::Uint8Array::from(book.epub).into(),
            };
            Reflect::set(&input, &kind.into(), &content).unwrap();
            let added = to_json(&resolve(opened.lectern.add_book(input.unchecked_into(), None)).await);
            let added = web::embedded_book(&opened.lectern, added["id"].as_str().unwrap()).await;
            let only = |k: usize| js(json!({ "bookIds": [added["id"]], "k": k })).unchecked_into();
            let all = to_json(&resolve(opened.lectern.search("の 的 في the".into(), Some(only(100)))).await);
            assert_eq!(
                all.as_array().unwrap().len() as u64,
                added["chunkCount"].as_u64().unwrap()
            );
            for result in all.as_array().unwrap() {
                let chars = result["text"].as_str().unwrap().chars().count();
                assert!(chars <= 100, "{} {kind}: {chars} characters", book.name);
            }
            for (query, passage, chapter) in book.searches {
                let best = to_json(&resolve(opened.lectern.search((*query).into(), Some(only(1)))).await);
                let text = best[0]["text"].as_str().unwrap();
                assert!(
                    text.contains(passage),
                    "{} {kind}: {query} found {text}",
                    book.name
                );
                if kind == "epub" {
                    assert_eq!(best[0]["chapter"], *chapter, "{} {query}", book.name);
                }
            }
        }
    }
    resolve(opened.lectern.close()).await;
    IndexedDbStore::delete_database(&db).await.unwrap();
}

#[wasm_bindgen_test]
async fn a_book_conversation_gets_only_passages_up_to_the_readers_page() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "s1", "name": "search_book", "arguments": { "query": "who is Sunday really", "top_k": 3 } }] },
            { "text": "So far the book has not said." }
        ]))
        .await;
    let opened = open_with(json!({ "provider": provider(&session), "embedder": { "kind": "hashed" }, "retrieval": { "chunkChars": 100, "overlapChars": 0 } }))
    .await;
    let book = to_json(
        &resolve(
            opened.lectern.add_book(
                js(json!({ "title": "Thursday", "pages": [
                "Syme meets Gregory in Saffron Park.",
                "Gregory leads Syme to the council of anarchists.",
                "Sunday is revealed to be the man in the dark room who hired them all."
            ] }))
                .unchecked_into(),
                None,
            ),
        )
        .await,
    );
    let book_id = book["id"].as_str().unwrap().to_owned();
    resolve(
        opened
            .lectern
            .set_current_page(book_id.clone().into(), JsValue::from(2)),
    )
    .await;
    let conv = to_json(
        &resolve(opened.lectern.create_conversation(Some(
            js(json!({ "title": "Reading", "bookId": book_id })).unchecked_into(),
        )))
        .await,
    );
    let conv_id = conv["id"].as_str().unwrap().to_owned();
    let reply = to_json(
        &resolve(
            opened
                .lectern
                .send(conv_id.clone().into(), "Who is Sunday really?".into(), None),
        )
        .await,
    );
    assert_eq!(reply["text"], "So far the book has not said.");
    let result = reply["toolCalls"][0]["resultText"].as_str().unwrap().to_owned();
    assert_eq!(
        reply["toolCalls"][0]["result"],
        result.as_str(),
        "text that is not JSON stays text"
    );
    assert!(result.starts_with("[Pages "), "{result}");
    assert!(!result.contains("dark room"), "nothing from page 3: {result}");
    let requests = session.requests().await;
    assert_eq!(requests[0]["body"]["tools"][0]["function"]["name"], "search_book");
    let system = requests[0]["body"]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("on page 2 of 3"), "{system}");
    let tool_message = requests[1]["body"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()
        .clone();
    assert_eq!(tool_message["content"], result);
    let event = opened
        .events
        .borrow()
        .iter()
        .find(|e| e["type"] == "toolResult")
        .cloned()
        .unwrap();
    assert_eq!(event["details"]["query"], "who is Sunday really");
    assert!(event["details"]["resultCount"].as_u64().unwrap() <= 2);
    let stored = to_json(&resolve(opened.lectern.messages(conv_id.into())).await);
    assert_eq!(stored[2]["role"], "tool_result");
    assert_eq!(stored[2]["content"], result);
}

#[wasm_bindgen_test]
async fn the_openai_embedder_and_a_custom_one_ingest_and_search() {
    let session = MockSession::new();
    let embedder = json!({ "kind": "openai", "baseUrl": session.base_url(), "model": "text-embedding-3-small", "apiKey": "k", "batchSize": 2 });
    let opened = open_with(json!({ "provider": provider(&session), "embedder": embedder })).await;
    let book = to_json(
        &resolve(opened.lectern.add_book(js(json!({ "title": "Small", "text": "Cats sleep all day. Dogs guard the house at night. Birds sing at dawn." })).unchecked_into(), None)).await,
    );
    assert_eq!(book["embedder"], "text-embedding-3-small");
    let book = web::embedded_book(&opened.lectern, book["id"].as_str().unwrap()).await;
    assert_eq!(book["dimensions"], 64);
    let found = to_json(
        &resolve(
            opened
                .lectern
                .search("dogs house".into(), Some(js(json!({ "k": 1 })).unchecked_into())),
        )
        .await,
    );
    assert!(found[0]["text"].as_str().unwrap().contains("Dogs"));
    let requests = session.requests().await;
    assert!(requests
        .iter()
        .all(|r| r["path"].as_str().unwrap().ends_with("/v1/embeddings")));
    assert_eq!(requests[0]["body"]["model"], "text-embedding-3-small");

    let embed = Function::new_with_args(
        "texts",
        "return Promise.resolve(texts.map((t) => { const v = new Float32Array(8); for (const w of t.toLowerCase().split(/\\W+/)) if (w) v[w.length % 8] += 1; return v; }));",
    );
    let options = js(
        json!({ "provider": provider(&session), "embedder": { "kind": "custom", "model": "webgpu-mini" } }),
    );
    Reflect::set(
        &Reflect::get(&options, &"embedder".into()).unwrap(),
        &"embed".into(),
        &embed,
    )
    .unwrap();
    let custom = lectern::wasm::Lectern::connect(options).await.unwrap();
    let book = to_json(
        &resolve(custom.add_book(
            js(json!({ "title": "T", "text": "One two three." })).unchecked_into(),
            None,
        ))
        .await,
    );
    let book = web::embedded_book(&custom, book["id"].as_str().unwrap()).await;
    assert_eq!(
        (book["embedder"].as_str(), book["dimensions"].as_u64()),
        (Some("webgpu-mini"), Some(8))
    );
}

#[wasm_bindgen_test]
async fn bad_books_are_typed_errors_and_store_nothing() {
    let session = MockSession::new();
    let db = unique("bad-books");
    let opened =
        open_with(json!({ "dbName": db, "provider": provider(&session), "embedder": { "kind": "hashed" } }))
            .await;
    for (input, needle) in [
        (json!({ "title": "Empty", "text": "   " }), "no text"),
        (
            json!({ "title": "Both", "text": "a", "pages": ["b"] }),
            "exactly one",
        ),
        (json!({ "text": "untitled" }), "title"),
    ] {
        let error = reject(opened.lectern.add_book(js(input).unchecked_into(), None)).await;
        assert_eq!(String::from(error.name()), "ConfigError");
        assert!(
            String::from(error.message()).contains(needle),
            "{}",
            String::from(error.message())
        );
    }
    let epub = js(json!({ "title": "An EPUB" }));
    Reflect::set(&epub, &"epub".into(), &js_sys::Uint8Array::new_with_length(4)).unwrap();
    let error = reject(opened.lectern.add_book(epub.unchecked_into(), None)).await;
    assert_eq!(String::from(error.name()), "ConfigError");

    let controller = web_sys::AbortController::new().unwrap();
    controller.abort();
    let options = js(json!({}));
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let error = reject(opened.lectern.add_book(
        js(json!({ "title": "Stopped", "text": "Some text." })).unchecked_into(),
        Some(options.unchecked_into()),
    ))
    .await;
    assert_eq!(String::from(error.name()), "AbortError");
    assert!(
        to_json(&resolve(opened.lectern.books()).await)
            .as_array()
            .unwrap()
            .is_empty(),
        "nothing half-written"
    );

    let book = to_json(
        &resolve(opened.lectern.add_book(
            js(json!({ "title": "Kept", "text": "A garden." })).unchecked_into(),
            None,
        ))
        .await,
    );
    web::embedded_book(&opened.lectern, book["id"].as_str().unwrap()).await;
    resolve(opened.lectern.close()).await;
    let other = open_with(json!({ "dbName": db, "provider": provider(&session), "embedder": { "kind": "hashed", "dimensions": 256 } })).await;
    let options = js(json!({ "bookIds": [book["id"]] }));
    let error = reject(
        other
            .lectern
            .search("garden".into(), Some(options.unchecked_into())),
    )
    .await;
    assert_eq!(String::from(error.name()), "EmbedderMismatchError");
    resolve(other.lectern.close()).await;
    IndexedDbStore::delete_database(&db).await.unwrap();
}

/// Pages for the lexical test: page `i` names a distinct keeper and, on even
/// pages, the lighthouse; page 7 alone holds "kraken".
fn lexical_pages() -> Vec<String> {
    (1..=12)
        .map(|i| match i {
            7 => "A kraken rose beside the black rocks at night, and nobody on the island slept at all."
                .to_owned(),
            _ if i % 2 == 0 => {
                format!("Keeper{i} lit the great lighthouse lamp at dusk, as every evening of that winter.")
            }
            _ => {
                format!("Keeper{i} mended the torn nets on the shore, as every morning of that long winter.")
            }
        })
        .collect()
}

#[wasm_bindgen_test]
async fn without_an_embedder_a_book_is_searched_lexically_from_its_stored_index() {
    let session = MockSession::new();
    let db = unique("lexical-books");
    let options = json!({ "dbName": db, "provider": provider(&session), "retrieval": { "chunkChars": 100, "overlapChars": 0 } });
    let opened = open_with(options.clone()).await;
    let book = to_json(
        &resolve(opened.lectern.add_book(
            js(json!({ "title": "Shore", "pages": lexical_pages() })).unchecked_into(),
            None,
        ))
        .await,
    );
    assert_eq!(
        (book["embedder"].as_str(), book["dimensions"].as_u64()),
        (Some("none"), Some(0))
    );
    assert_eq!(book["chunkCount"], 12);
    let id = book["id"].as_str().unwrap().to_owned();
    let search = |lectern: &lectern::wasm::Lectern, query: &str, options: Value| {
        lectern.search(query.into(), Some(js(options).unchecked_into()))
    };
    for bound in [1u64, 5, 9, 12] {
        let found = to_json(
            &resolve(search(
                &opened.lectern,
                "lighthouse",
                json!({ "k": 4, "maxPage": bound }),
            ))
            .await,
        );
        let found = found.as_array().unwrap();
        assert_eq!(
            found.len() as u64,
            4.min(bound / 2),
            "bound {bound}: every even page up to it, at most 4"
        );
        assert!(found
            .iter()
            .all(|r| r["endPage"].as_u64().unwrap() <= bound && r["score"].as_f64().unwrap() > 0.0));
    }
    for mode in ["semantic", "hybrid"] {
        let error = reject(search(&opened.lectern, "lighthouse", json!({ "mode": mode }))).await;
        assert_eq!(String::from(error.name()), "ConfigError", "{mode}");
    }
    resolve(opened.lectern.close()).await;

    // Swap the stored index for one of other texts (the same chunk count): a reopened
    // Lectern that finds "zebra" on page 3 read it from IndexedDB, not from the chunks.
    let store = IndexedDbStore::open(&db).await.unwrap();
    let stored = store
        .lexical_index(&id)
        .await
        .unwrap()
        .expect("stored with the book");
    let (chunks, _) = store.book_content(&id).await.unwrap();
    assert_eq!(
        stored,
        encode::encode(&LexicalIndex::build(chunks.iter().map(|c| c.text.as_str())))
    );
    let swapped: Vec<String> = (1..=12)
        .map(|i| {
            if i == 3 {
                "zebra".into()
            } else {
                format!("other{i}")
            }
        })
        .collect();
    let swapped = encode::encode(&LexicalIndex::build(swapped.iter().map(String::as_str)));
    store.put_lexical_index(&id, &swapped).await.unwrap();
    store.close();
    let reopened = open_with(options.clone()).await;
    let found = to_json(&resolve(search(&reopened.lectern, "zebra", json!({ "k": 5 }))).await);
    assert_eq!(found.as_array().unwrap().len(), 1);
    assert_eq!(found[0]["startPage"], 3, "the stored index answered");
    resolve(reopened.lectern.close()).await;

    // A corrupt one is rebuilt from the chunks and saved.
    let store = IndexedDbStore::open(&db).await.unwrap();
    store
        .put_lexical_index(&id, &stored[..stored.len() - 1])
        .await
        .unwrap();
    store.close();
    let again = open_with(options).await;
    let found = to_json(&resolve(search(&again.lectern, "kraken", json!({ "maxPage": 12 }))).await);
    assert_eq!(
        (found.as_array().unwrap().len(), found[0]["startPage"].as_u64()),
        (1, Some(7))
    );
    resolve(again.lectern.close()).await;
    let store = IndexedDbStore::open(&db).await.unwrap();
    assert_eq!(
        store.lexical_index(&id).await.unwrap(),
        Some(stored),
        "rebuilt and saved"
    );
    store.close();
    IndexedDbStore::delete_database(&db).await.unwrap();
}
