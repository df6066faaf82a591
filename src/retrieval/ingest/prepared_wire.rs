//! A prepared book as bytes, to cross from the ingestion worker to the page:
//! its record fields and chunks in postcard (one transferable buffer, not a
//! JSON string per chunk) with its lexical index in its stored form; its
//! vectors cross separately as one `Float32Array` (empty, dimension 0,
//! without an embedder).

use serde::{Deserialize, Serialize};

use crate::domain::Chunk;
use crate::domain::Page;
use crate::error::{Error, Result};
use crate::retrieval::ingest::prepare::PreparedBook;
use crate::retrieval::lexical::encode as lexical_bytes;
use crate::retrieval::vectors::vector::VectorSet;

#[derive(Serialize, Deserialize)]
struct WireChunk {
    text: String,
    start_page: u32,
    end_page: u32,
    chapter: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct WireBook {
    id: String,
    title: String,
    author: Option<String>,
    page_count: u32,
    chunks: Vec<WireChunk>,
    lexical: Vec<u8>,
    /// The pages, each as a chunk whose start and end page are its number
    /// (one wire type for both keeps the page's module smaller).
    pages: Vec<WireChunk>,
}

/// Everything of `prepared` but its vectors, as bytes.
pub fn encode_prepared(prepared: &PreparedBook) -> Result<Vec<u8>> {
    let wire = WireBook {
        id: prepared.id.clone(),
        title: prepared.title.clone(),
        author: prepared.author.clone(),
        page_count: prepared.page_count,
        chunks: prepared
            .chunks
            .iter()
            .map(|c| WireChunk {
                text: c.text.clone(),
                start_page: c.start_page,
                end_page: c.end_page,
                chapter: c.chapter.clone(),
            })
            .collect(),
        lexical: lexical_bytes::encode(&prepared.lexical),
        pages: prepared
            .pages
            .iter()
            .map(|p| WireChunk {
                text: p.text.clone(),
                start_page: p.number,
                end_page: p.number,
                chapter: p.chapter.clone(),
            })
            .collect(),
    };
    postcard::to_allocvec(&wire).map_err(|e| Error::protocol(format!("cannot encode a prepared book: {e}")))
}

/// The prepared book `bytes` (from [`encode_prepared`]) and `vectors` describe;
/// a `ProtocolError` if they are malformed or do not belong together.
pub fn decode_prepared(bytes: &[u8], vectors: VectorSet) -> Result<PreparedBook> {
    let wire: WireBook = postcard::from_bytes(bytes)
        .map_err(|e| Error::protocol(format!("the ingestion worker sent a malformed book: {e}")))?;
    let vectors_fit = wire.chunks.len() == vectors.len() || (vectors.dims() == 0 && vectors.is_empty());
    if !vectors_fit || wire.chunks.is_empty() {
        return Err(Error::protocol(format!(
            "the ingestion worker sent {} chunks with {} vectors",
            wire.chunks.len(),
            vectors.len()
        )));
    }
    let lexical = lexical_bytes::decode(&wire.lexical, wire.chunks.len())
        .map_err(|e| Error::protocol(format!("the ingestion worker sent {e}")))?;
    let chunks = wire
        .chunks
        .into_iter()
        .enumerate()
        .map(|(i, c)| Chunk {
            ordinal: i as u32,
            text: c.text,
            start_page: c.start_page,
            end_page: c.end_page,
            chapter: c.chapter,
        })
        .collect();
    Ok(PreparedBook {
        id: wire.id,
        title: wire.title,
        author: wire.author,
        page_count: wire.page_count,
        chunks,
        vectors,
        lexical,
        pages: wire
            .pages
            .into_iter()
            .map(|p| Page {
                number: p.start_page,
                text: p.text,
                chapter: p.chapter,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prepared_book_survives_the_round_trip() {
        let mut vectors = VectorSet::new(2);
        vectors.push(&[1.0, 0.0]);
        vectors.push(&[0.0, 1.0]);
        let chunk = |i: u32, chapter: Option<&str>| Chunk {
            ordinal: i,
            text: format!("passage {i} — 日本語 🎉"),
            start_page: i + 1,
            end_page: i + 2,
            chapter: chapter.map(str::to_owned),
        };
        let prepared = PreparedBook {
            id: "b1".into(),
            title: "T".into(),
            author: None,
            page_count: 3,
            chunks: vec![chunk(0, None), chunk(1, Some("CHAPTER I"))],
            vectors: vectors.clone(),
            lexical: crate::retrieval::lexical::LexicalIndex::build(["passage 0", "passage 1 日本語"]),
            pages: vec![Page {
                number: 3,
                text: "page — 日本語".into(),
                chapter: Some("CHAPTER I".into()),
            }],
        };
        let bytes = encode_prepared(&prepared).unwrap();
        let back = decode_prepared(&bytes, vectors.clone()).unwrap();
        assert_eq!(back.chunks, prepared.chunks);
        assert_eq!(back.lexical, prepared.lexical);
        assert_eq!(back.pages, prepared.pages);
        assert_eq!((back.id.as_str(), back.page_count), ("b1", 3));
        assert!(decode_prepared(&bytes[..bytes.len() / 2], vectors).is_err());
        assert!(decode_prepared(&bytes, VectorSet::new(2)).is_err());
        let lexical_only = decode_prepared(&bytes, VectorSet::new(0)).unwrap();
        assert_eq!((lexical_only.vectors.dims(), lexical_only.chunks.len()), (0, 2));
    }
}
