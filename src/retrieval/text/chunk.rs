//! Sentence-aware chunks with overlap, each knowing its pages and chapter.

use serde::Serialize;

use crate::domain::{Chunk, Page};
use crate::json::from_json::FromJson;
use crate::retrieval::text::breaks::{char_offset, cluster_cut, last_break};
use crate::retrieval::text::pages::chapter_heading;
use crate::retrieval::text::sentences::split_sentences;

/// How chunks are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, FromJson)]
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
#[derive(Clone)]
struct Sentence {
    text: String,
    /// Its length in characters.
    chars: usize,
    page: u32,
    chapter: Option<String>,
}

/// `text` cut into pieces of at most `limit` characters, at the last break
/// opportunity (whitespace, or between CJK characters) that fits, else
/// mid-word, keeping a letter with its combining marks when it can.
fn pieces(text: &str, limit: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let end = char_offset(rest, limit);
        if end == rest.len() {
            out.push(rest);
            return out;
        }
        let cut = last_break(rest, end).unwrap_or_else(|| cluster_cut(rest, end));
        out.push(rest[..cut].trim_end());
        rest = rest[cut..].trim_start();
        if rest.is_empty() {
            return out;
        }
    }
}

/// Characters of `sentences` joined by single spaces, plus one.
fn joined_size(sentences: &[Sentence]) -> usize {
    sentences.iter().map(|s| s.chars + 1).sum()
}

/// Keeps the last sentences of a finished chunk, up to `overlap` characters.
fn carry_over(current: &mut Vec<Sentence>, overlap: usize) {
    let mut carried = 0;
    let keep = current
        .iter()
        .rev()
        .take_while(|s| {
            carried += s.chars + 1;
            carried <= overlap
        })
        .count();
    current.drain(..current.len() - keep);
}

/// Cuts pages into chunks of at most `chunk_chars` characters, never
/// splitting a sentence that fits in one (a longer one is cut at word, or
/// CJK character, boundaries) nor spanning two chapters; each chunk starts
/// with the previous one's last sentences up to `overlap_chars`, as far as
/// they fit and are of the same chapter.
pub fn chunk_pages(pages: &[Page], settings: &ChunkSettings) -> Vec<Chunk> {
    let mut chunker = Chunker::new(settings);
    pages.iter().for_each(|page| chunker.push_page(page));
    chunker.finish()
}

/// [`chunk_pages`] a page at a time, so that long books can be cut in steps.
pub struct Chunker {
    limit: usize,
    overlap: usize,
    chunks: Vec<Chunk>,
    /// The chunk being filled: carried-over sentences, then fresh ones.
    current: Vec<Sentence>,
    /// Sentences in `current` not carried over from the previous chunk.
    fresh: usize,
    /// The chapter the text is in.
    chapter: Option<String>,
}

impl Chunker {
    /// A chunker with no text yet.
    pub fn new(settings: &ChunkSettings) -> Self {
        Chunker {
            limit: settings.chunk_chars.max(1),
            overlap: settings.overlap_chars,
            chunks: Vec::new(),
            current: Vec::new(),
            fresh: 0,
            chapter: None,
        }
    }

    /// Adds the sentences of the next page (whitespace collapsed, none longer
    /// than the limit; chapter headings are sentences that start chapters).
    pub fn push_page(&mut self, page: &Page) {
        if page.chapter.is_some() {
            self.chapter = page.chapter.clone();
        }
        for paragraph in page.text.split("\n\n") {
            let mut body = paragraph.trim_start();
            if let Some(first_line) = body.lines().next().filter(|l| chapter_heading(l)) {
                body = &body[first_line.len()..];
                self.chapter = Some(first_line.trim().to_owned());
                self.push_text(first_line.trim().to_owned(), page.number);
            }
            for sentence in split_sentences(body) {
                let text = sentence.split_whitespace().collect::<Vec<_>>().join(" ");
                self.push_text(text, page.number);
            }
        }
    }

    /// Adds one sentence, cut into pieces if it is longer than the limit.
    fn push_text(&mut self, text: String, page: u32) {
        let chars = text.chars().count();
        if chars <= self.limit {
            let chapter = self.chapter.clone();
            self.push_sentence(Sentence {
                text,
                chars,
                page,
                chapter,
            });
            return;
        }
        for piece in pieces(&text, self.limit) {
            let chapter = self.chapter.clone();
            self.push_sentence(Sentence {
                text: piece.to_owned(),
                chars: piece.chars().count(),
                page,
                chapter,
            });
        }
    }

    fn push_sentence(&mut self, sentence: Sentence) {
        let limit = self.limit;
        let new_chapter = self
            .current
            .last()
            .is_some_and(|last| last.chapter != sentence.chapter);
        if self.fresh > 0 && (new_chapter || joined_size(&self.current) + sentence.chars > limit) {
            self.chunks
                .push(make_chunk(self.chunks.len() as u32, &self.current));
            carry_over(&mut self.current, self.overlap);
            self.fresh = 0;
        }
        if new_chapter {
            self.current.clear();
        }
        // Carried sentences give way to a new one that would not fit beside them.
        while !self.current.is_empty() && joined_size(&self.current) + sentence.chars > limit {
            self.current.remove(0);
        }
        self.current.push(sentence);
        self.fresh += 1;
    }

    /// The chunks of every page pushed.
    pub fn finish(mut self) -> Vec<Chunk> {
        if self.fresh > 0 {
            self.chunks
                .push(make_chunk(self.chunks.len() as u32, &self.current));
        }
        self.chunks
    }
}

fn make_chunk(ordinal: u32, sentences: &[Sentence]) -> Chunk {
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
    use crate::retrieval::text::pages::pages_from_list;

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

    #[test]
    fn cjk_chunks_stay_within_the_configured_size() {
        let sentence = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。";
        let unpunctuated =
            "何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している".repeat(30);
        let pages = pages_from_list(vec![sentence.repeat(40), unpunctuated.clone()]);
        let settings = ChunkSettings {
            chunk_chars: 120,
            overlap_chars: 30,
            page_chars: 2000,
        };
        let chunks = chunk_pages(&pages, &settings);
        for chunk in &chunks {
            let chars = chunk.text.chars().count();
            assert!(chars <= 120, "{chars}: {}", chunk.text);
        }
        let page_one = chunks.iter().filter(|c| c.end_page == 1).count();
        assert!(page_one >= 40 * 33 / 120, "{page_one} chunks on page 1");
        let page_two: String = chunks
            .iter()
            .filter(|c| c.start_page == 2)
            .map(|c| c.text.as_str())
            .collect();
        assert!(page_two.contains(&unpunctuated[..300]));
    }

    #[test]
    fn a_chunk_never_spans_two_chapters() {
        let mut pages = pages_from_list(vec![
            "First chapter ends here.".into(),
            "Second one begins.".into(),
        ]);
        pages[0].chapter = Some("One".into());
        pages[1].chapter = Some("Two".into());
        let chunks = chunk_pages(&pages, &ChunkSettings::default());
        let found: Vec<_> = chunks
            .iter()
            .map(|c| (c.text.as_str(), c.chapter.as_deref()))
            .collect();
        assert_eq!(
            found,
            [
                ("First chapter ends here.", Some("One")),
                ("Second one begins.", Some("Two"))
            ]
        );
    }
}
