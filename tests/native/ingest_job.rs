//! The ingestion job the page sends its worker: one typed record, read back
//! exactly, and the EPUB bytes that travel beside it checked.

use lectern::retrieval::ingest::ingest_job::IngestJob;
use lectern::retrieval::ingest::new_book::BookSource;
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::Error;

fn job(text: Option<&str>, pages: Option<Vec<String>>) -> IngestJob {
    IngestJob {
        book_id: "b1".into(),
        title: "Thursday — a nightmare".into(),
        author: Some("G. K. Chesterton".into()),
        text: text.map(str::to_owned),
        pages,
        chunking: ChunkSettings::default(),
    }
}

#[test]
fn a_job_reads_back_as_written() {
    for written in [
        job(Some("Syme\n\n日本語"), None),
        job(None, Some(vec!["one".into(), "two".into()])),
        job(None, None),
    ] {
        assert_eq!(
            IngestJob::from_text(&written.to_text().unwrap()).unwrap(),
            written
        );
    }
}

#[test]
fn the_book_takes_its_content_and_the_bytes_beside_it() {
    let text = job(Some("Once"), None).into_new_book(None).unwrap();
    assert_eq!(text.source, BookSource::Text("Once".into()));
    assert_eq!(text.author.as_deref(), Some("G. K. Chesterton"));
    let epub = job(None, None).into_new_book(Some(vec![80, 75])).unwrap();
    assert_eq!(epub.source, BookSource::Epub(vec![80, 75]));
}

#[test]
fn missing_or_stray_content_and_bad_text_are_protocol_errors() {
    let none = job(None, None).into_new_book(None).unwrap_err();
    assert!(matches!(none, Error::Protocol { .. }), "{none:?}");
    let two = job(Some("x"), None).into_new_book(Some(vec![1])).unwrap_err();
    assert!(matches!(two, Error::Protocol { .. }), "{two:?}");
    let unknown = IngestJob::from_text(
        r#"{"bookId":"b","title":"t","text":"x","chunking":{"chunkChars":800,"overlapChars":0,"pageChars":2000},"inPage":true}"#,
    )
    .unwrap_err();
    assert!(matches!(unknown, Error::Protocol { .. }), "{unknown:?}");
}
