//! A book as one versioned binary bundle (`exportBook` / `importBook`), so a
//! site can ship a book already cut, embedded and indexed.
//!
//! Layout (little-endian; a string is a `u32` byte length and UTF-8, an
//! optional value a `0`/`1` byte then the value): the magic `LCTNBOOK`, a
//! `u32` version, then sections, each a 4-byte tag, a `u32` length and its
//! bytes, in this order —
//! - `META`: the book's id, title, optional author, page count, chunk count,
//!   reader's page, embedder, dimensions (`u32`s and strings), its chapter
//!   titles (a `u32` count, then strings) and creation time (`f64`);
//! - `CHNK`: per chunk, its start and end page, text and optional chapter
//!   (ordinals are positions);
//! - `VECT` (if it has vectors): dimensions and row count, then the `f32`s;
//! - `LEXI` (if any): the lexical index; `HNSW` (if any): the ANN snapshot;
//! - `PAGE` (version 2 only): per page, its number, text and optional chapter —
//!
//! and last the CRC-32 of everything before it. Decoding checks all of it: a
//! bundle that is cut, altered, of another version or whose parts disagree
//! is a `ConfigError` saying which. A book without stored pages (stored
//! before Lectern kept them) is written as version 1, byte for byte what
//! earlier Lectern wrote; version 1 bundles are read as books without pages. (Hand-written rather than serde: the
//! page's module is 3.5 KB gzip lighter for it.)

use crate::domain::{Book, Chunk, Page, StoredVectors};
use crate::error::{Error, Result};
use crate::retrieval::formats::zip::crc32;

/// The bundle's first bytes.
pub const MAGIC: &[u8; 8] = b"LCTNBOOK";
/// The newest version this Lectern writes and reads (it reads 1 as well).
pub const VERSION: u32 = 2;
/// The version of a bundle without pages.
const VERSION_WITHOUT_PAGES: u32 = 1;

/// Everything of a stored book.
#[derive(Debug, Clone, PartialEq)]
pub struct BookBundle {
    /// The book's record.
    pub book: Book,
    /// Its chunks, in reading order.
    pub chunks: Vec<Chunk>,
    /// One vector per chunk (none for a book without an embedder).
    pub vectors: Option<StoredVectors>,
    /// Its lexical index, as the store keeps it.
    pub lexical: Option<Vec<u8>>,
    /// Its ANN index snapshot, if it has one.
    pub snapshot: Option<Vec<u8>>,
    /// Its pages, in order (none for a book stored before pages were kept).
    pub pages: Vec<Page>,
}

fn bad(why: impl std::fmt::Display) -> Error {
    Error::config(format!("not a Lectern book bundle: {why}"))
}

/// Appends little-endian values and strings.
#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, value: u32) {
        self.0.extend(value.to_le_bytes());
    }
    fn bytes(&mut self, bytes: &[u8]) {
        self.u32(bytes.len() as u32);
        self.0.extend(bytes);
    }
    fn string(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }
    fn optional(&mut self, text: Option<&str>) {
        self.0.push(u8::from(text.is_some()));
        if let Some(text) = text {
            self.string(text);
        }
    }
    fn section(&mut self, tag: &[u8; 4], body: &[u8]) {
        self.0.extend(tag);
        self.bytes(body);
    }
}

/// The bundle as bytes.
pub fn encode_bundle(bundle: &BookBundle) -> Vec<u8> {
    let mut out = Writer(MAGIC.to_vec());
    out.u32(if bundle.pages.is_empty() {
        VERSION_WITHOUT_PAGES
    } else {
        VERSION
    });
    out.section(b"META", &encode_book(&bundle.book));
    out.section(b"CHNK", &encode_chunks(&bundle.chunks));
    if let Some(vectors) = &bundle.vectors {
        let mut body = Writer::default();
        body.u32(vectors.dims() as u32);
        body.u32(vectors.len() as u32);
        vectors.flat().iter().for_each(|f| body.0.extend(f.to_le_bytes()));
        out.section(b"VECT", &body.0);
    }
    if let Some(lexical) = &bundle.lexical {
        out.section(b"LEXI", lexical);
    }
    if let Some(snapshot) = &bundle.snapshot {
        out.section(b"HNSW", snapshot);
    }
    if !bundle.pages.is_empty() {
        let mut body = Writer::default();
        for page in &bundle.pages {
            body.u32(page.number);
            body.string(&page.text);
            body.optional(page.chapter.as_deref());
        }
        out.section(b"PAGE", &body.0);
    }
    let crc = crc32(&out.0);
    out.u32(crc);
    out.0
}

fn encode_book(book: &Book) -> Vec<u8> {
    let mut out = Writer::default();
    out.string(&book.id);
    out.string(&book.title);
    out.optional(book.author.as_deref());
    [book.page_count, book.chunk_count, book.current_page]
        .into_iter()
        .for_each(|n| out.u32(n));
    out.string(&book.embedder);
    out.u32(book.dimensions);
    out.u32(book.chapters.len() as u32);
    book.chapters.iter().for_each(|c| out.string(c));
    out.0.extend(book.created_at.to_le_bytes());
    out.0
}

fn encode_chunks(chunks: &[Chunk]) -> Vec<u8> {
    let mut out = Writer::default();
    for chunk in chunks {
        out.u32(chunk.start_page);
        out.u32(chunk.end_page);
        out.string(&chunk.text);
        out.optional(chunk.chapter.as_deref());
    }
    out.0
}

/// Reads what [`Writer`] wrote; every overrun is a `ConfigError`.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }
    fn take(&mut self, count: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(count).filter(|end| *end <= self.bytes.len());
        let taken = &self.bytes[self.at..end.ok_or_else(|| bad("it is cut short"))?];
        self.at += count;
        Ok(taken)
    }
    fn u32(&mut self) -> Result<u32> {
        let four = self.take(4)?;
        Ok(u32::from_le_bytes([four[0], four[1], four[2], four[3]]))
    }
    fn f64(&mut self) -> Result<f64> {
        let mut eight = [0; 8];
        eight.copy_from_slice(self.take(8)?);
        Ok(f64::from_le_bytes(eight))
    }
    fn bytes(&mut self) -> Result<&'a [u8]> {
        let length = self.u32()? as usize;
        self.take(length)
    }
    fn string(&mut self) -> Result<String> {
        let bytes = self.bytes()?;
        String::from_utf8(bytes.to_vec()).map_err(|_| bad("a text in it is not UTF-8"))
    }
    fn optional(&mut self) -> Result<Option<String>> {
        match self.take(1)?[0] {
            0 => Ok(None),
            1 => self.string().map(Some),
            _ => Err(bad("an optional text in it is malformed")),
        }
    }
    /// The body of section `tag` if it comes next.
    fn section(&mut self, tag: &[u8; 4]) -> Result<Option<&'a [u8]>> {
        if self.bytes.get(self.at..self.at + 4) != Some(tag.as_slice()) {
            return Ok(None);
        }
        self.at += 4;
        self.bytes().map(Some)
    }
}

/// The bundle in `bytes`, checked whole (see the module's doc); the record's
/// counts must agree with its chunks and vectors.
pub fn decode_bundle(bytes: &[u8]) -> Result<BookBundle> {
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return Err(bad("it does not start with LCTNBOOK"));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    let mut reader = Reader::new(body);
    reader.take(8)?;
    let version = reader.u32()?;
    if version != VERSION && version != VERSION_WITHOUT_PAGES {
        return Err(Error::config(format!(
            "this book bundle is version {version}; this Lectern reads versions 1 and {VERSION}"
        )));
    }
    if crc32(body) != Reader::new(crc).u32()? {
        return Err(bad("its checksum does not match (cut short or altered)"));
    }
    let book = read_book(required(reader.section(b"META")?, "META")?)?;
    let chunks = read_chunks(required(reader.section(b"CHNK")?, "CHNK")?)?;
    let vectors = reader.section(b"VECT")?.map(read_vectors).transpose()?;
    let lexical = reader.section(b"LEXI")?.map(<[u8]>::to_vec);
    let snapshot = reader.section(b"HNSW")?.map(<[u8]>::to_vec);
    let pages = match version {
        VERSION => read_pages(required(reader.section(b"PAGE")?, "PAGE")?)?,
        _ => Vec::new(),
    };
    if !reader.done() {
        return Err(bad("unknown data after its sections"));
    }
    let bundle = BookBundle {
        book,
        chunks,
        vectors,
        lexical,
        snapshot,
        pages,
    };
    check_counts(&bundle)?;
    Ok(bundle)
}

fn required<'a>(section: Option<&'a [u8]>, tag: &str) -> Result<&'a [u8]> {
    section.ok_or_else(|| bad(format!("it has no {tag} section")))
}

fn read_book(bytes: &[u8]) -> Result<Book> {
    let mut r = Reader::new(bytes);
    let (id, title, author) = (r.string()?, r.string()?, r.optional()?);
    let (page_count, chunk_count, current_page) = (r.u32()?, r.u32()?, r.u32()?);
    let (embedder, dimensions) = (r.string()?, r.u32()?);
    let chapters = (0..r.u32()?).map(|_| r.string()).collect::<Result<_>>()?;
    let created_at = r.f64()?;
    if !r.done() {
        return Err(bad("its book record is longer than a record"));
    }
    Ok(Book {
        id,
        title,
        author,
        page_count,
        chunk_count,
        current_page,
        embedder,
        dimensions,
        chapters,
        created_at,
    })
}

fn read_chunks(bytes: &[u8]) -> Result<Vec<Chunk>> {
    let mut r = Reader::new(bytes);
    let mut chunks = Vec::new();
    while !r.done() {
        let (start_page, end_page) = (r.u32()?, r.u32()?);
        let (text, chapter) = (r.string()?, r.optional()?);
        chunks.push(Chunk {
            ordinal: chunks.len() as u32,
            text,
            start_page,
            end_page,
            chapter,
        });
    }
    Ok(chunks)
}

/// Pages with increasing numbers from 1.
fn read_pages(bytes: &[u8]) -> Result<Vec<Page>> {
    let mut r = Reader::new(bytes);
    let mut pages: Vec<Page> = Vec::new();
    while !r.done() {
        let (number, text, chapter) = (r.u32()?, r.string()?, r.optional()?);
        if number <= pages.last().map_or(0, |p| p.number) {
            return Err(bad(format!("its page {number} is out of order")));
        }
        pages.push(Page {
            number,
            text,
            chapter,
        });
    }
    if pages.is_empty() {
        return Err(bad("its PAGE section is empty"));
    }
    Ok(pages)
}

fn read_vectors(bytes: &[u8]) -> Result<StoredVectors> {
    let mut r = Reader::new(bytes);
    let (dims, rows) = (r.u32()? as usize, r.u32()? as usize);
    let floats = &bytes[8..];
    if dims == 0 || floats.len() != dims.saturating_mul(rows).saturating_mul(4) {
        return Err(bad(format!("its vectors are not {rows} rows of {dims}")));
    }
    let flat = floats
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Ok(StoredVectors::from_flat(dims, flat))
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
    if book.current_page == 0 || book.current_page > book.page_count {
        return Err(bad(format!(
            "its reader's page {} is outside 1..={}",
            book.current_page, book.page_count
        )));
    }
    if bundle.vectors.is_none() && book.dimensions != 0 {
        return Err(bad(format!(
            "its record has {} dimensions but it holds no vectors",
            book.dimensions
        )));
    }
    if let Some(last) = bundle.pages.last().filter(|p| p.number != book.page_count) {
        return Err(bad(format!(
            "its record counts {} pages, its last page is {}",
            book.page_count, last.number
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
            vectors: Some(StoredVectors::from_flat(
                4,
                (0..12).map(|i| i as f32 / 12.0).collect(),
            )),
            lexical: Some(vec![1, 2, 3]),
            snapshot: None,
            pages: (1..=3)
                .map(|n| Page {
                    number: n,
                    text: format!("Page {n}: «ünïcode» 日本語."),
                    chapter: (n > 1).then(|| "Chapter II".to_owned()),
                })
                .collect(),
        }
    }

    #[test]
    fn a_bundle_round_trips_byte_for_byte() {
        let bytes = encode_bundle(&bundle());
        let decoded = decode_bundle(&bytes).unwrap();
        assert_eq!(decoded, bundle());
        assert_eq!(encode_bundle(&decoded), bytes);
        let mut bare = bundle();
        (bare.vectors, bare.lexical, bare.snapshot) = (None, None, Some(vec![9; 5]));
        bare.book.dimensions = 0;
        assert_eq!(decode_bundle(&encode_bundle(&bare)).unwrap(), bare);
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_a_config_error() {
        let bytes = encode_bundle(&bundle());
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
        let error = decode_bundle(&encode_bundle(&wrong)).unwrap_err();
        assert!(
            error.to_string().contains("counts 4 chunks, it holds 3"),
            "{error}"
        );
        let mut wrong = bundle();
        wrong.book.dimensions = 8;
        let error = decode_bundle(&encode_bundle(&wrong)).unwrap_err();
        assert!(error.to_string().contains("3 vectors of 4 dimensions"), "{error}");
        let mut wrong = bundle();
        wrong.pages.pop();
        let error = decode_bundle(&encode_bundle(&wrong)).unwrap_err();
        assert!(
            error.to_string().contains("counts 3 pages, its last page is 2"),
            "{error}"
        );
        let mut bytes = encode_bundle(&bundle());
        bytes[8] = 3;
        let error = decode_bundle(&bytes).unwrap_err();
        assert!(error.to_string().contains("version 3"), "{error}");
    }

    #[test]
    fn a_book_without_pages_is_a_version_1_bundle_as_before() {
        let mut old = bundle();
        old.pages.clear();
        let bytes = encode_bundle(&old);
        assert_eq!(u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]), 1);
        assert!(!bytes.windows(4).any(|w| w == b"PAGE"));
        assert_eq!(decode_bundle(&bytes).unwrap(), old);
        let with_pages = encode_bundle(&bundle());
        assert_eq!(with_pages[8], 2);
        assert_eq!(decode_bundle(&with_pages).unwrap().pages.len(), 3);
    }
}
