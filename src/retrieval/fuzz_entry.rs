//! Entry points for fuzzing the text pipeline, shared by the property tests
//! (`tests/native/text_props.rs`) and a `cargo fuzz` harness. Each
//! `fn(&[u8])` takes any bytes, runs one stage and panics if an invariant
//! breaks; the `check_*` functions do the same for structured input. No
//! input may make a stage itself panic. (Nothing here is exported to JS; the
//! release build drops it.)

use crate::domain::Chunk;
use crate::domain::Page;
use crate::error::Result;
use crate::retrieval::formats::epub::{pages_from_epub_with_limits, EpubLimits};
use crate::retrieval::text::breaks::break_between;
use crate::retrieval::text::chunk::{chunk_pages, ChunkSettings};
use crate::retrieval::text::markup::{decode_entities, tokens, xhtml_text};
use crate::retrieval::text::pages::{pages_from_list, pages_from_text};

/// A little-endian number from the first `n` bytes of `data`, and the rest.
fn take(data: &[u8], n: usize) -> (usize, &[u8]) {
    let n = n.min(data.len());
    let value = data[..n].iter().rev().fold(0usize, |v, &b| v << 8 | b as usize);
    (value, &data[n..])
}

/// Markup: `data` as text (lossy UTF-8) through the scanner and the decoder.
pub fn markup(data: &[u8]) {
    check_markup(&String::from_utf8_lossy(data));
}

/// The scanner and the entity decoder on `input`: no panic; readable text is
/// never longer than the markup (a tag or reference is at least as long as
/// what it becomes); decoding never adds characters; text without `&` decodes
/// to itself.
pub fn check_markup(input: &str) {
    let _ = tokens(input);
    let text = xhtml_text(input);
    assert!(
        text.len() <= input.len(),
        "{} bytes of text from {}",
        text.len(),
        input.len()
    );
    let decoded = decode_entities(input);
    assert!(decoded.chars().count() <= input.chars().count());
    if !input.contains('&') {
        assert_eq!(decoded, input);
    }
}

/// Pages: the first two bytes are `page_chars`, the rest the text (lossy UTF-8).
pub fn pages(data: &[u8]) {
    let (page_chars, rest) = take(data, 2);
    check_pages(&String::from_utf8_lossy(rest), page_chars);
}

/// `pages_from_text(text, page_chars)`, checked: numbers never decrease
/// (they increase strictly unless markers reach `u32::MAX`);
/// form-feed pages rejoin to the text; synthetic pages rejoin to it too
/// (trailing whitespace aside), none is only whitespace, and one longer
/// than the page size (whitespace around it aside) is a single word (no
/// break opportunity inside it) of at most twice the page size.
pub fn check_pages(text: &str, page_chars: usize) -> Vec<Page> {
    let pages = pages_from_text(text, page_chars);
    assert!(pages.first().is_none_or(|p| p.number >= 1));
    assert!(
        pages.windows(2).all(|w| w[0].number <= w[1].number),
        "page numbers never decrease"
    );
    if text.contains('\u{000C}') {
        let joined: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(joined.join("\u{000C}"), text);
    } else if !text.contains("[[page ") {
        check_synthetic(text, page_chars.max(200), &pages);
    }
    pages
}

fn check_synthetic(text: &str, page_chars: usize, pages: &[Page]) {
    let joined: String = pages.iter().map(|p| p.text.as_str()).collect();
    assert!(
        text.starts_with(&joined) && text[joined.len()..].trim().is_empty(),
        "pages rejoin to the text"
    );
    for (i, page) in pages.iter().enumerate() {
        assert_eq!(page.number as usize, i + 1);
        assert!(
            !page.text.trim().is_empty(),
            "page {} is only whitespace",
            page.number
        );
        let body = page.text.trim();
        let length = body.chars().count();
        assert!(
            length <= 2 * page_chars,
            "page {} has {length} characters",
            page.number
        );
        if length > page_chars {
            let chars: Vec<char> = body.chars().collect();
            let inner = chars.windows(2).position(|w| break_between(w[0], w[1]));
            assert!(
                inner.is_none(),
                "page {} is longer than {page_chars} and not one word",
                page.number
            );
        }
    }
}

/// Chunking: bytes 0-1 are `chunk_chars`, 2-3 `overlap_chars`; the rest is
/// text (lossy UTF-8) whose form feeds separate pages.
pub fn chunking(data: &[u8]) {
    let (chunk_chars, rest) = take(data, 2);
    let (overlap_chars, rest) = take(rest, 2);
    let text = String::from_utf8_lossy(rest);
    let pages = pages_from_list(text.split('\u{000C}').map(str::to_owned).collect());
    let settings = ChunkSettings {
        chunk_chars,
        overlap_chars,
        page_chars: 2000,
    };
    check_chunks(&pages, &settings);
}

/// `chunk_pages(pages, settings)`, checked: ordinals count from 0; no chunk
/// is longer than `chunk_chars` characters (at least 1); page ranges are
/// ordered and real; and the chunks cover the text in order, without gaps.
pub fn check_chunks(pages: &[Page], settings: &ChunkSettings) -> Vec<Chunk> {
    let chunks = chunk_pages(pages, settings);
    let numbers: Vec<u32> = pages.iter().map(|p| p.number).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        assert_eq!(chunk.ordinal as usize, i);
        let chars = chunk.text.chars().count();
        assert!(
            chars <= settings.chunk_chars.max(1),
            "{chars} characters: {:?}",
            chunk.text
        );
        assert!(chunk.start_page <= chunk.end_page);
        assert!(numbers.contains(&chunk.start_page) && numbers.contains(&chunk.end_page));
    }
    assert!(chunks.windows(2).all(|w| w[0].start_page <= w[1].start_page));
    // Page-bounded search takes the chunks ending on or before a page as a prefix.
    assert!(chunks.windows(2).all(|w| w[0].end_page <= w[1].end_page));
    check_coverage(pages, &chunks);
    chunks
}

fn squeeze(text: &str) -> Vec<char> {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whitespace aside, the chunks are pieces of the pages' text, each starting
/// inside or right after the one before and ending later, the first at the
/// start and the last at the end. Every placement of each chunk is tried.
fn check_coverage(pages: &[Page], chunks: &[Chunk]) {
    let text: Vec<char> = pages.iter().flat_map(|p| squeeze(&p.text)).collect();
    if chunks.is_empty() {
        assert!(text.is_empty(), "text but no chunks");
        return;
    }
    // Where the previous chunk may start and end (the first chunk must start at 0).
    let (mut starts, mut ends) = (vec![0], vec![0]);
    for chunk in chunks {
        let piece = squeeze(&chunk.text);
        let lowest = starts.iter().copied().min().unwrap_or(0);
        let highest = ends
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .min(text.len().saturating_sub(piece.len()));
        let (mut next_starts, mut next_ends) = (Vec::new(), Vec::new());
        for at in (lowest..=highest).filter(|&at| text[at..].starts_with(&piece)) {
            let end = at + piece.len();
            if starts
                .iter()
                .zip(&ends)
                .any(|(&s, &e)| s <= at && at <= e && end > e)
            {
                next_starts.push(at);
                next_ends.push(end);
            }
        }
        assert!(
            !next_starts.is_empty(),
            "chunk {} does not follow on: {:?}",
            chunk.ordinal,
            chunk.text
        );
        (starts, ends) = (next_starts, next_ends);
    }
    assert!(
        ends.contains(&text.len()),
        "the chunks stop before the end of the text"
    );
}

/// EPUB: `data` as an EPUB file, 200-character pages, within 1 MiB.
pub fn epub(data: &[u8]) {
    let limits = EpubLimits {
        max_entry_bytes: 1 << 20,
        max_total_bytes: 1 << 20,
    };
    let _ = check_epub(data, 200, &limits);
}

/// `pages_from_epub_with_limits`, checked: an error is a `ConfigError`;
/// pages are numbered 1, 2, 3, ... and hold no more text than the limits.
pub fn check_epub(bytes: &[u8], page_chars: usize, limits: &EpubLimits) -> Result<Vec<Page>> {
    let result = pages_from_epub_with_limits(bytes, page_chars, limits);
    match &result {
        Err(error) => assert_eq!(error.name(), "ConfigError", "{error}"),
        Ok(pages) => {
            assert!(!pages.is_empty());
            assert!(pages.iter().enumerate().all(|(i, p)| p.number as usize == i + 1));
            let total: usize = pages.iter().map(|p| p.text.len()).sum();
            assert!(total <= limits.max_total_bytes);
        }
    }
    result
}
