//! A book as one versioned binary bundle (`exportBook` / `importBook`), so a
//! site can ship a book already cut, embedded and indexed.
//!
//! Layout (little-endian): the magic `LCTNBOOK`, a `u32` version, then
//! sections, each a 4-byte tag, a `u32` length and its bytes, in this order —
//! `META` (the book record, JSON), `CHNK` (the chunks, postcard), `VECT`
//! (dimensions and row count as `u32`s, then the `f32`s), `LEXI` (the
//! lexical index, if any), `HNSW` (the ANN snapshot, if any) — and last the
//! CRC-32 of everything before it. Decoding checks all of it: a bundle that
//! is cut, altered, of another version or whose parts disagree is a
//! `ConfigError` saying which.

use serde::{Deserialize, Serialize};

use super::book::Book;
use super::chunk::Chunk;
use super::vector::VectorSet;
use super::zip::crc32;
use crate::error::{Error, Result};

/// The bundle's first bytes.
pub const MAGIC: &[u8; 8] = b"LCTNBOOK";
/// The version this Lectern writes and reads.
pub const VERSION: u32 = 1;

/// Everything of a stored book.
#[derive(Debug, Clone, PartialEq)]
pub struct BookBundle {
    /// The book's record.
    pub book: Book,
    /// Its chunks, in reading order.
    pub chunks: Vec<Chunk>,
    /// One vector per chunk (none for a book without an embedder).
    pub vectors: Option<VectorSet>,
    /// Its lexical index, as the store keeps it.
    pub lexical: Option<Vec<u8>>,
    /// Its ANN index snapshot, if it has one.
    pub snapshot: Option<Vec<u8>>,
}

#[derive(Serialize, Deserialize)]
struct WireChunk {
    ordinal: u32,
    text: String,
    start_page: u32,
    end_page: u32,
    chapter: Option<String>,
}

fn bad(why: impl std::fmt::Display) -> Error {
    Error::config(format!("not a Lectern book bundle: {why}"))
}

/// The bundle as bytes.
pub fn encode_bundle(bundle: &BookBundle) -> Result<Vec<u8>> {
    let mut out = MAGIC.to_vec();
    out.extend(VERSION.to_le_bytes());
    let meta = serde_json::to_vec(&bundle.book).map_err(|e| Error::protocol(e.to_string()))?;
    section(&mut out, b"META", &meta);
    let chunks: Vec<WireChunk> = bundle.chunks.iter().map(wire_chunk).collect();
    let chunks = postcard::to_allocvec(&chunks).map_err(|e| Error::protocol(e.to_string()))?;
    section(&mut out, b"CHNK", &chunks);
    if let Some(vectors) = &bundle.vectors {
        let mut bytes = Vec::with_capacity(8 + vectors.as_flat().len() * 4);
        bytes.extend((vectors.dims() as u32).to_le_bytes());
        bytes.extend((vectors.len() as u32).to_le_bytes());
        vectors
            .as_flat()
            .iter()
            .for_each(|f| bytes.extend(f.to_le_bytes()));
        section(&mut out, b"VECT", &bytes);
    }
    if let Some(lexical) = &bundle.lexical {
        section(&mut out, b"LEXI", lexical);
    }
    if let Some(snapshot) = &bundle.snapshot {
        section(&mut out, b"HNSW", snapshot);
    }
    let crc = crc32(&out);
    out.extend(crc.to_le_bytes());
    Ok(out)
}

fn wire_chunk(c: &Chunk) -> WireChunk {
    WireChunk {
        ordinal: c.ordinal,
        text: c.text.clone(),
        start_page: c.start_page,
        end_page: c.end_page,
        chapter: c.chapter.clone(),
    }
}

fn section(out: &mut Vec<u8>, tag: &[u8; 4], bytes: &[u8]) {
    out.extend(tag);
    out.extend((bytes.len() as u32).to_le_bytes());
    out.extend(bytes);
}

/// The bundle in `bytes`, checked whole (see the module's doc); the record's
/// counts must agree with its chunks and vectors.
pub fn decode_bundle(bytes: &[u8]) -> Result<BookBundle> {
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return Err(bad("it does not start with LCTNBOOK"));
    }
    let version = u32_at(bytes, 8)?;
    if version != VERSION {
        return Err(Error::config(format!(
            "this book bundle is version {version}; this Lectern reads version {VERSION}"
        )));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32(body) != u32_at(crc, 0)? {
        return Err(bad("its checksum does not match (cut short or altered)"));
    }
    let mut sections = Sections { bytes: body, at: 12 };
    let book: Book = serde_json::from_slice(sections.take(b"META")?.ok_or_else(|| bad("no META"))?)
        .map_err(|e| bad(format!("its book record: {e}")))?;
    let chunks = read_chunks(sections.take(b"CHNK")?.ok_or_else(|| bad("no CHNK"))?)?;
    let vectors = sections.take(b"VECT")?.map(read_vectors).transpose()?;
    let lexical = sections.take(b"LEXI")?.map(<[u8]>::to_vec);
    let snapshot = sections.take(b"HNSW")?.map(<[u8]>::to_vec);
    if sections.at != body.len() {
        return Err(bad("unknown data after its sections"));
    }
    let bundle = BookBundle {
        book,
        chunks,
        vectors,
        lexical,
        snapshot,
    };
    check_counts(&bundle)?;
    Ok(bundle)
}

/// The sections in order, each taken if its tag comes next.
struct Sections<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Sections<'a> {
    fn take(&mut self, tag: &[u8; 4]) -> Result<Option<&'a [u8]>> {
        if self.bytes.get(self.at..self.at + 4) != Some(tag.as_slice()) {
            return Ok(None);
        }
        let length = u32_at(self.bytes, self.at + 4)? as usize;
        let start = self.at + 8;
        let section = self
            .bytes
            .get(start..start.saturating_add(length))
            .ok_or_else(|| {
                bad(format!(
                    "its {} section is cut short",
                    String::from_utf8_lossy(tag)
                ))
            })?;
        self.at = start + length;
        Ok(Some(section))
    }
}

fn u32_at(bytes: &[u8], at: usize) -> Result<u32> {
    let four = bytes.get(at..at + 4).ok_or_else(|| bad("it is cut short"))?;
    Ok(u32::from_le_bytes([four[0], four[1], four[2], four[3]]))
}

fn read_chunks(bytes: &[u8]) -> Result<Vec<Chunk>> {
    let wire: Vec<WireChunk> = postcard::from_bytes(bytes).map_err(|e| bad(format!("its chunks: {e}")))?;
    Ok(wire
        .into_iter()
        .map(|c| Chunk {
            ordinal: c.ordinal,
            text: c.text,
            start_page: c.start_page,
            end_page: c.end_page,
            chapter: c.chapter,
        })
        .collect())
}

fn read_vectors(bytes: &[u8]) -> Result<VectorSet> {
    let dims = u32_at(bytes, 0)? as usize;
    let rows = u32_at(bytes, 4)? as usize;
    let floats = &bytes[8..];
    if dims == 0 || floats.len() != dims.saturating_mul(rows).saturating_mul(4) {
        return Err(bad(format!("its vectors are not {rows} rows of {dims}")));
    }
    let flat = floats
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Ok(VectorSet::from_flat(dims, flat))
}

fn check_counts(bundle: &BookBundle) -> Result<()> {
    let book = &bundle.book;
    if bundle.chunks.is_empty() || bundle.chunks.len() != book.chunk_count as usize {
        return Err(bad(format!(
            "its record counts {} chunks, it holds {}",
            book.chunk_count,
            bundle.chunks.len()
        )));
    }
    if !bundle
        .chunks
        .iter()
        .enumerate()
        .all(|(i, c)| c.ordinal as usize == i)
    {
        return Err(bad("its chunks are out of order"));
    }
    if book.current_page == 0 || book.current_page > book.page_count {
        return Err(bad(format!(
            "its reader's page {} is outside 1..={}",
            book.current_page, book.page_count
        )));
    }
    if let Some(vectors) = &bundle.vectors {
        if vectors.len() != bundle.chunks.len() || vectors.dims() != book.dimensions as usize {
            return Err(bad(format!(
                "{} vectors of {} dimensions for {} chunks of {} dimensions",
                vectors.len(),
                vectors.dims(),
                bundle.chunks.len(),
                book.dimensions
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle() -> BookBundle {
        let chunks: Vec<Chunk> = (0..3)
            .map(|i| Chunk {
                ordinal: i,
                text: format!("Passage {i}: «ünïcode» 日本語."),
                start_page: i + 1,
                end_page: i + 1,
                chapter: (i > 0).then(|| "Chapter II".to_owned()),
            })
            .collect();
        BookBundle {
            book: Book {
                id: "b1".into(),
                title: "Three pages".into(),
                author: Some("A. Writer".into()),
                page_count: 3,
                chunk_count: 3,
                current_page: 2,
                embedder: "test-model".into(),
                dimensions: 4,
                chapters: vec!["Chapter II".into()],
                created_at: 1.7e12,
            },
            chunks,
            vectors: Some(VectorSet::from_flat(
                4,
                (0..12).map(|i| i as f32 / 12.0).collect(),
            )),
            lexical: Some(vec![1, 2, 3]),
            snapshot: None,
        }
    }

    #[test]
    fn a_bundle_round_trips_byte_for_byte() {
        let bytes = encode_bundle(&bundle()).unwrap();
        let decoded = decode_bundle(&bytes).unwrap();
        assert_eq!(decoded, bundle());
        assert_eq!(encode_bundle(&decoded).unwrap(), bytes);
        let mut bare = bundle();
        (bare.vectors, bare.lexical, bare.snapshot) = (None, None, Some(vec![9; 5]));
        assert_eq!(decode_bundle(&encode_bundle(&bare).unwrap()).unwrap(), bare);
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_a_config_error() {
        let bytes = encode_bundle(&bundle()).unwrap();
        for end in 0..bytes.len() {
            let error = decode_bundle(&bytes[..end]).unwrap_err();
            assert_eq!(error.name(), "ConfigError", "cut at {end}: {error}");
        }
        for at in 0..bytes.len() {
            let mut altered = bytes.clone();
            altered[at] ^= 0x20;
            let error = decode_bundle(&altered).unwrap_err();
            assert_eq!(error.name(), "ConfigError", "flipped at {at}: {error}");
        }
    }

    #[test]
    fn parts_that_disagree_and_other_versions_are_named() {
        let mut wrong = bundle();
        wrong.book.chunk_count = 4;
        let error = decode_bundle(&encode_bundle(&wrong).unwrap()).unwrap_err();
        assert!(
            error.to_string().contains("counts 4 chunks, it holds 3"),
            "{error}"
        );
        let mut wrong = bundle();
        wrong.book.dimensions = 8;
        let error = decode_bundle(&encode_bundle(&wrong).unwrap()).unwrap_err();
        assert!(error.to_string().contains("3 vectors of 4 dimensions"), "{error}");
        let mut bytes = encode_bundle(&bundle()).unwrap();
        bytes[8] = 2;
        let body = bytes.len() - 4;
        let crc = crc32(&bytes[..body]);
        bytes[body..].copy_from_slice(&crc.to_le_bytes());
        let error = decode_bundle(&bytes).unwrap_err();
        assert!(error.to_string().contains("version 2"), "{error}");
    }
}
