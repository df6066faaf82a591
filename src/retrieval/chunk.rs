//! Sentence-aware chunks with overlap, each knowing its pages and chapter.

use serde::{Deserialize, Serialize};

use super::pages::{chapter_heading, Page};

/// A passage of a book, the unit of retrieval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    /// Position in the book (0, 1, 2, ...).
    pub ordinal: u32,
    /// The passage.
    pub text: String,
    /// The page it starts on.
    pub start_page: u32,
    /// The page it ends on.
    pub end_page: u32,
    /// The chapter it is in, if the book has chapters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chapter: Option<String>,
}

/// How chunks are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChunkSettings {
    /// Target size in characters (default 800).
    #[serde(default = "default_chunk_chars")]
    pub chunk_chars: usize,
    /// Characters of trailing sentences repeated at the start of the next chunk (default 150).
    #[serde(default = "default_overlap_chars")]
    pub overlap_chars: usize,
    /// Size of synthetic pages when the text has no page markers (default 2000).
    #[serde(default = "default_page_chars")]
    pub page_chars: usize,
}

fn default_chunk_chars() -> usize {
    800
}
fn default_overlap_chars() -> usize {
    150
}
fn default_page_chars() -> usize {
    2000
}

impl Default for ChunkSettings {
    fn default() -> Self {
        ChunkSettings {
            chunk_chars: default_chunk_chars(),
            overlap_chars: default_overlap_chars(),
            page_chars: default_page_chars(),
        }
    }
}

/// A sentence with where it is.
struct Sentence {
    text: String,
    page: u32,
    chapter: Option<String>,
}

/// Splits text into sentences: after `.`, `!` or `?` (and closing quotes or
/// brackets) followed by whitespace, and at blank lines.
fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let paragraph = b == b'\n' && bytes.get(i + 1) == Some(&b'\n');
        if matches!(b, b'.' | b'!' | b'?') || paragraph {
            let mut end = i + 1;
            while end < bytes.len() && matches!(bytes[end], b'"' | b'\'' | b')' | b']') {
                end += 1;
            }
            // Closing curly quotes are three bytes.
            while text[end..].starts_with(['\u{201D}', '\u{2019}']) {
                end += 3;
            }
            if end >= bytes.len() || bytes[end].is_ascii_whitespace() {
                out.push(&text[start..end]);
                start = end;
                i = end;
                continue;
            }
        }
        i += 1;
    }
    out.push(&text[start..]);
    out.into_iter().map(str::trim).filter(|s| !s.is_empty()).collect()
}

/// Cuts pages into chunks of about `chunk_chars`, never splitting a sentence
/// (a sentence longer than a chunk is a chunk of its own), each starting with
/// the previous chunk's last sentences up to `overlap_chars`.
pub fn chunk_pages(pages: &[Page], settings: &ChunkSettings) -> Vec<Chunk> {
    let mut sentences = Vec::new();
    let mut chapter: Option<String> = None;
    for page in pages {
        if page.chapter.is_some() {
            chapter = page.chapter.clone();
        }
        for paragraph in page.text.split("\n\n") {
            let mut body = paragraph.trim_start();
            if let Some(first_line) = body.lines().next().filter(|l| chapter_heading(l)) {
                let heading = first_line.trim().to_owned();
                body = &body[first_line.len()..];
                chapter = Some(heading.clone());
                sentences.push(Sentence {
                    text: heading,
                    page: page.number,
                    chapter: chapter.clone(),
                });
            }
            for sentence in split_sentences(body) {
                sentences.push(Sentence {
                    text: sentence.split_whitespace().collect::<Vec<_>>().join(" "),
                    page: page.number,
                    chapter: chapter.clone(),
                });
            }
        }
    }

    let mut chunks = Vec::new();
    let mut current: Vec<&Sentence> = Vec::new();
    let mut size = 0;
    let mut fresh = 0; // sentences in `current` not carried over from the previous chunk
    for sentence in &sentences {
        if size > 0 && size + sentence.text.len() + 1 > settings.chunk_chars && fresh > 0 {
            chunks.push(make_chunk(chunks.len() as u32, &current));
            let mut carried = Vec::new();
            let mut carried_size = 0;
            for s in current.iter().rev() {
                if carried_size + s.text.len() + 1 > settings.overlap_chars {
                    break;
                }
                carried_size += s.text.len() + 1;
                carried.push(*s);
            }
            carried.reverse();
            current = carried;
            size = carried_size;
            fresh = 0;
        }
        size += sentence.text.len() + 1;
        current.push(sentence);
        fresh += 1;
    }
    if fresh > 0 {
        chunks.push(make_chunk(chunks.len() as u32, &current));
    }
    chunks
}

fn make_chunk(ordinal: u32, sentences: &[&Sentence]) -> Chunk {
    let text = sentences
        .iter()
        .map(|s| s.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    Chunk {
        ordinal,
        text,
        start_page: sentences.iter().map(|s| s.page).min().unwrap_or(1),
        end_page: sentences.iter().map(|s| s.page).max().unwrap_or(1),
        chapter: sentences.last().and_then(|s| s.chapter.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::pages::pages_from_list;

    #[test]
    fn sentences_split_after_terminators_and_quotes() {
        let s = split_sentences("He said \"Stop.\" Then he left! Did he? Yes.\n\nNew paragraph without end");
        assert_eq!(
            s,
            [
                "He said \"Stop.\"",
                "Then he left!",
                "Did he?",
                "Yes.",
                "New paragraph without end"
            ]
        );
        assert_eq!(
            split_sentences("Mr. Smith paid 3.5 dollars."),
            ["Mr.", "Smith paid 3.5 dollars."]
        );
    }

    #[test]
    fn chunks_respect_size_overlap_and_pages() {
        let page = |n: usize| {
            (0..10)
                .map(|i| format!("Sentence {i} of page {n} is here."))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let pages = pages_from_list((1..=3).map(page).collect());
        let settings = ChunkSettings {
            chunk_chars: 200,
            overlap_chars: 60,
            page_chars: 2000,
        };
        let chunks = chunk_pages(&pages, &settings);
        assert!(chunks.len() > 5);
        for pair in chunks.windows(2) {
            let last_sentence = pair[0].text.rsplit(". ").next().unwrap();
            assert!(
                pair[1].text.contains(last_sentence),
                "overlap carries the last sentence: {:?} / {:?}",
                pair[0].text,
                pair[1].text
            );
        }
        for chunk in &chunks {
            assert!(chunk.text.len() <= 200 + 40, "{}", chunk.text.len());
            assert!(chunk.start_page <= chunk.end_page);
        }
        assert_eq!(chunks.first().unwrap().start_page, 1);
        assert_eq!(chunks.last().unwrap().end_page, 3);
        assert!(
            chunks.iter().any(|c| c.start_page == 1 && c.end_page == 2),
            "a chunk may span pages"
        );
    }

    #[test]
    fn chapters_follow_headings() {
        let pages = pages_from_list(vec![
            "CHAPTER I. THE BEGINNING\n\nIt was a dark night. The end came.".into(),
            "More of one.\n\nCHAPTER II. THE MIDDLE\n\nA new day dawned.".into(),
        ]);
        let chunks = chunk_pages(
            &pages,
            &ChunkSettings {
                chunk_chars: 30,
                overlap_chars: 0,
                page_chars: 2000,
            },
        );
        let first = chunks.iter().find(|c| c.text.contains("dark night")).unwrap();
        assert_eq!(first.chapter.as_deref(), Some("CHAPTER I. THE BEGINNING"));
        let more = chunks.iter().find(|c| c.text.contains("More of one")).unwrap();
        assert_eq!(more.chapter.as_deref(), Some("CHAPTER I. THE BEGINNING"));
        let last = chunks.iter().find(|c| c.text.contains("new day")).unwrap();
        assert_eq!(last.chapter.as_deref(), Some("CHAPTER II. THE MIDDLE"));
    }
}
