//! The passages put in front of the model for a reader's question: the
//! reader's own page (and the ones just before it), then the passages a
//! search finds up to that page, within a token budget — never past the page.
//! What wins here was measured on reader questions (`tests/native/reader_eval.rs`,
//! `npm run bench`): see [`ReaderContextPlan::default`].

use crate::domain::{distinct_sources, estimate_tokens, Source, SourceVia};
use crate::error::Result;
use crate::json::from_json::FromJson;
use crate::retrieval::lexical::tokenize::terms;
use crate::retrieval::library::search_mode::SearchMode;
use crate::retrieval::library::{Library, SearchOptions, SearchResult};
use crate::retrieval::reader::focus::focus;
use crate::retrieval::reader::query::{is_stop_term, reader_query};
use crate::runtime::cancel::CancelToken;

/// The most reader's pages a context takes (`retrieval.readerPages` is checked against it).
pub const MAX_READER_PAGES: u32 = 4;

/// The most passages a search adds (`retrieval.passages` is checked against it).
pub const MAX_PASSAGES: usize = 20;

/// The default `retrieval.readerPages`.
pub const DEFAULT_READER_PAGES: u32 = 2;

/// The default `retrieval.passages`.
pub const DEFAULT_PASSAGES: usize = 10;

/// The default `retrieval.maxContextTokens`: the reader's pages and the
/// passages found within 1,500 estimated tokens held the evidence of most
/// reader questions (`tests/native/reader_eval.rs`).
pub const DEFAULT_CONTEXT_TOKENS: usize = 1500;

/// How the context for one question is put together.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct ReaderContextPlan {
    /// Pages up to and including the reader's, always in the context (0: none).
    pub reader_pages: u32,
    /// Passages searched for (0: none).
    pub passages: usize,
    /// How they are ranked (`None`: the library's default mode).
    pub mode: Option<SearchMode>,
    /// For each name in the question (at most this many), the first passage
    /// that names it: where the book introduces a character or a place.
    pub introductions: usize,
    /// Each found passage cut to the sentences around the query's terms,
    /// at most this many characters ([`focus`]; `None`: whole chunks).
    pub passage_chars: Option<usize>,
    /// Search with the question's content words ([`reader_query`]) rather than the question.
    pub rewrite_query: bool,
    /// The most estimated tokens of the whole context (`None`: no limit); the
    /// reader's page (cut to its end) or, without it, the best passage is kept
    /// even when it alone is over.
    pub max_tokens: Option<usize>,
    /// What the searched passages are marked as: `alwaysRetrieve` or `search_book`.
    pub via: SourceVia,
}

/// What measured best on the 32 reader questions of
/// `tests/fixtures/thursday-reader-questions.json` within 1,500 tokens: the
/// reader's two pages (66% of the questions alone), the first passage naming
/// each name of the question, then the ten best BM25 passages for the
/// rewritten query, each cut to the 400 characters around its terms — 84%
/// (the old `alwaysRetrieve`, five whole passages for the question as asked:
/// 38%). BM25 whatever the embedder: fused with MiniLM the same plan held 75%,
/// the question's exact names counting for more than its meaning. A recency
/// prior (the search's rank fused with `e^(-pages before the reader's / 12)`)
/// changed nothing and was dropped; 300-character cuts or a 1,000-token
/// budget held less.
impl Default for ReaderContextPlan {
    fn default() -> Self {
        ReaderContextPlan {
            reader_pages: DEFAULT_READER_PAGES,
            passages: DEFAULT_PASSAGES,
            introductions: 2,
            passage_chars: Some(400),
            mode: Some(SearchMode::Lexical),
            rewrite_query: true,
            max_tokens: Some(DEFAULT_CONTEXT_TOKENS),
            via: SourceVia::AlwaysRetrieve,
        }
    }
}

/// The estimated tokens a passage costs in the prompt: its header, its text and a blank line.
pub fn source_tokens(start_page: u32, end_page: u32, text: &str) -> usize {
    estimate_tokens(&passage_header(start_page, end_page)) + estimate_tokens(text) + 1
}

/// The line before a passage's text: `[Pages X-Y]`.
pub fn passage_header(start_page: u32, end_page: u32) -> String {
    format!("[Pages {start_page}-{end_page}]")
}

/// The passages as the model reads them: each `[Pages X-Y]` then its text, blank lines between.
pub fn format_sources(sources: &[Source]) -> String {
    sources
        .iter()
        .map(|s| format!("{}\n{}", passage_header(s.start_page, s.end_page), s.text))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The passages as the model reads them in a turn's system message,
/// numbered for citing: `[1] [Pages X-Y]` then its text, blank lines between.
pub fn format_numbered_sources(sources: &[Source]) -> String {
    sources
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "[{}] {}\n{}",
                i + 1,
                passage_header(s.start_page, s.end_page),
                s.text
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The estimated tokens of `sources` as [`format_sources`] writes them.
pub fn sources_tokens(sources: &[Source]) -> usize {
    sources
        .iter()
        .map(|s| source_tokens(s.start_page, s.end_page, &s.text))
        .sum()
}

impl Library {
    /// The context for `question` in book `book_id` at the reader's current
    /// page, in book order: see [`ReaderContextPlan`]. Every passage ends on
    /// or before the reader's page.
    pub async fn reader_context(
        &self,
        book_id: &str,
        question: &str,
        plan: &ReaderContextPlan,
        cancel: &CancelToken,
    ) -> Result<Vec<Source>> {
        let book = self.book(book_id).await?;
        let page = book.current_page;
        let mut budget = plan.max_tokens.unwrap_or(usize::MAX);
        let (pages, whole) = self
            .reader_pages(book_id, page, plan.reader_pages, &mut budget)
            .await?;
        // Passages within the reader's pages are there already, when the pages are whole.
        let covered_from = match pages.first() {
            Some(reader) if whole => reader.start_page,
            _ => u32::MAX,
        };
        let passages = plan.passages.min(MAX_PASSAGES);
        let found = if passages > 0 {
            self.ranked_passages(book_id, question, page, plan, cancel)
                .await?
        } else {
            Vec::new()
        };
        let introductions = self
            .introductions(book_id, question, page, plan.introductions)
            .await?;
        let candidates = introductions
            .into_iter()
            .chain(found)
            .filter(|r| r.start_page < covered_from);
        let choice = Choice {
            wanted: passages + plan.introductions,
            query_terms: terms(&reader_query(question)),
            passage_chars: plan.passage_chars,
            alone: pages.is_empty(),
        };
        let mut chosen = choice.choose(candidates, &mut budget);
        // The parts' estimates round each on its own: the whole, as the model reads it, must fit too.
        loop {
            let sources = assemble(chosen.clone(), &pages, plan.via);
            let fits = plan
                .max_tokens
                .is_none_or(|max| estimate_tokens(&format_sources(&sources)) <= max);
            if fits || chosen.len() <= usize::from(pages.is_empty()) {
                return Ok(sources);
            }
            chosen.pop();
        }
    }

    /// The last `count` pages up to `page`, as one source, within `budget`
    /// (taking what they cost from it): the earlier pages go first; the
    /// reader's page stays, cut to its end if it alone is over. With whether
    /// the pages are there whole (not cut).
    async fn reader_pages(
        &self,
        book_id: &str,
        page: u32,
        count: u32,
        budget: &mut usize,
    ) -> Result<(Vec<Source>, bool)> {
        let first = page
            .saturating_sub(count.min(MAX_READER_PAGES).saturating_sub(1))
            .max(1);
        let mut texts = Vec::new();
        // A page the book lacks (skipped by its markers, or a book stored before pages were
        // kept) is left out: the search still reaches its text.
        for number in (first..=page).filter(|_| count > 0) {
            if let Some(stored) = self.store.page(book_id, number).await? {
                texts.push((number, stored.text));
            }
        }
        while texts.len() > 1 && joined_tokens(&texts) > *budget {
            texts.remove(0);
        }
        let mut whole = true;
        if texts.len() == 1 && joined_tokens(&texts) > *budget {
            let (number, text) = &texts[0];
            let header = source_tokens(*number, *number, "");
            texts[0].1 = tail_within(text, budget.saturating_sub(header)).to_owned();
            whole = false;
        }
        let Some(&(start_page, _)) = texts.first().filter(|(_, t)| !t.trim().is_empty()) else {
            return Ok((Vec::new(), false));
        };
        *budget = budget.saturating_sub(joined_tokens(&texts));
        let text = texts
            .into_iter()
            .map(|(_, t)| t.trim().to_owned())
            .collect::<Vec<_>>()
            .join("\n\n");
        let source = Source {
            book_id: book_id.to_owned(),
            start_page,
            end_page: page,
            text,
            via: SourceVia::ReaderPage,
        };
        Ok((vec![source], whole))
    }

    /// The first passage up to `page` naming each of the question's names
    /// ([`question_names`]), at most `count`, in the question's order.
    async fn introductions(
        &self,
        book_id: &str,
        question: &str,
        page: u32,
        count: usize,
    ) -> Result<Vec<SearchResult>> {
        if count == 0 {
            return Ok(Vec::new());
        }
        let loaded = self.load(book_id).await?;
        let mut found: Vec<SearchResult> = Vec::new();
        for name in question_names(question).into_iter().take(count) {
            let first = loaded.lexical.postings(&name).and_then(|postings| {
                postings
                    .iter()
                    .map(|p| &loaded.chunks[p.chunk as usize])
                    .find(|c| c.end_page <= page)
            });
            if let Some(chunk) = first.filter(|c| found.iter().all(|f| f.ordinal != c.ordinal)) {
                found.push(SearchResult {
                    book_id: book_id.to_owned(),
                    ordinal: chunk.ordinal,
                    text: chunk.text.clone(),
                    start_page: chunk.start_page,
                    end_page: chunk.end_page,
                    chapter: chunk.chapter.clone(),
                    score: 0.0,
                });
            }
        }
        Ok(found)
    }

    /// Passages for `question` up to `page`, best first, enough of them to
    /// fill the plan when some are left out.
    async fn ranked_passages(
        &self,
        book_id: &str,
        question: &str,
        page: u32,
        plan: &ReaderContextPlan,
        cancel: &CancelToken,
    ) -> Result<Vec<SearchResult>> {
        let query = if plan.rewrite_query {
            reader_query(question)
        } else {
            question.to_owned()
        };
        let options = SearchOptions {
            book_ids: Some(vec![book_id.to_owned()]),
            k: Some((plan.passages.min(MAX_PASSAGES) * 4).clamp(20, 100)),
            max_page: Some(page),
            mode: plan.mode,
        };
        self.search(&query, &options, cancel).await
    }
}

/// The context in book order: the `chosen` passages (neighbours joined) marked `via`, and the reader's `pages`.
fn assemble(chosen: Vec<SearchResult>, pages: &[Source], via: SourceVia) -> Vec<Source> {
    let searched = merge_adjacent(chosen).into_iter().map(|r| Source {
        book_id: r.book_id,
        start_page: r.start_page,
        end_page: r.end_page,
        text: r.text,
        via,
    });
    distinct_sources(searched.chain(pages.iter().cloned()))
}

/// How found passages are chosen for the context.
struct Choice {
    /// How many at most.
    wanted: usize,
    /// The question's content words, which a cut passage keeps.
    query_terms: Vec<String>,
    /// Each passage cut to this many characters around them.
    passage_chars: Option<usize>,
    /// No reader's page is in the context: the best passage is kept even over the budget.
    alone: bool,
}

impl Choice {
    /// The best distinct `candidates` (best first), each cut, that fit `budget` (taking what they cost).
    fn choose(
        &self,
        candidates: impl Iterator<Item = SearchResult>,
        budget: &mut usize,
    ) -> Vec<SearchResult> {
        let mut chosen: Vec<SearchResult> = Vec::new();
        for mut result in candidates {
            if chosen.len() == self.wanted {
                break;
            }
            if chosen.iter().any(|c| c.ordinal == result.ordinal) {
                continue;
            }
            if let Some(max_chars) = self.passage_chars {
                result.text = focus(&result.text, &self.query_terms, max_chars);
            }
            let cost = source_tokens(result.start_page, result.end_page, &result.text);
            let only = chosen.is_empty() && self.alone;
            if cost > *budget && !only {
                continue;
            }
            *budget = budget.saturating_sub(cost);
            chosen.push(result);
        }
        chosen
    }
}

/// The names a question asks about: its capitalised words that are not
/// question or function words (lower-case, as the lexical index has them).
pub fn question_names(question: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for word in question.split(|c: char| !(c.is_alphanumeric() || c == '\'')) {
        let term = terms(word).into_iter().next().unwrap_or_default();
        let capital = word.chars().next().is_some_and(char::is_uppercase);
        if capital && !term.is_empty() && !is_stop_term(&term) && !names.contains(&term) {
            names.push(term);
        }
    }
    names
}

fn joined_tokens(texts: &[(u32, String)]) -> usize {
    let (first, last) = (texts[0].0, texts[texts.len() - 1].0);
    let body: usize = texts.iter().map(|(_, t)| estimate_tokens(t) + 1).sum();
    source_tokens(first, last, "") + body
}

/// The end of `text` that fits `max_tokens` (estimated), starting at a word.
pub fn tail_within(text: &str, max_tokens: usize) -> &str {
    if estimate_tokens(text) <= max_tokens {
        return text;
    }
    let starts: Vec<usize> = text
        .char_indices()
        .filter(|&(i, c)| i > 0 && c.is_whitespace())
        .map(|(i, _)| i)
        .collect();
    // The latest start is shortest: find the earliest that fits.
    let fits = |&i: &usize| estimate_tokens(&text[i..]) <= max_tokens;
    let at = starts.partition_point(|i| !fits(i));
    if let Some(&i) = starts.get(at) {
        return text[i..].trim_start();
    }
    // No word starts late enough (CJK, or one long word): cut between characters.
    let chars: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let at = chars.partition_point(|i| !fits(i));
    chars.get(at).map_or("", |&i| &text[i..])
}

/// Chosen passages with neighbours (consecutive chunks whose texts still
/// share their overlap) joined into one, the overlap once; in book order.
fn merge_adjacent(mut chosen: Vec<SearchResult>) -> Vec<SearchResult> {
    chosen.sort_by_key(|r| r.ordinal);
    let mut merged: Vec<SearchResult> = Vec::new();
    for result in chosen {
        let joined = merged
            .last()
            .filter(|last| last.ordinal + 1 == result.ordinal && last.book_id == result.book_id)
            .and_then(|last| join_overlapping(&last.text, &result.text));
        match (merged.last_mut(), joined) {
            (Some(last), Some(text)) => {
                last.text = text;
                last.end_page = last.end_page.max(result.end_page);
                last.ordinal = result.ordinal;
            }
            _ => merged.push(result),
        }
    }
    merged
}

/// The least text two neighbours must share to be joined: a sentence, not a stray quote mark.
const MIN_OVERLAP_BYTES: usize = 16;

/// `a` then `b`, the longest end of `a` that `b` starts with written once:
/// at least [`MIN_OVERLAP_BYTES`], starting a word; `None` when they share
/// no such text (a cut passage lost its overlap).
pub fn join_overlapping(a: &str, b: &str) -> Option<String> {
    let at = a
        .char_indices()
        .map(|(i, _)| i)
        .take_while(|&i| a.len() - i >= MIN_OVERLAP_BYTES)
        .filter(|&i| i == 0 || a[..i].ends_with(char::is_whitespace))
        .find(|&i| b.starts_with(&a[i..]))?;
    Some(format!("{a}{}", &b[a.len() - at..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(ordinal: u32, pages: (u32, u32), text: &str) -> SearchResult {
        SearchResult {
            book_id: "b".into(),
            ordinal,
            text: text.into(),
            start_page: pages.0,
            end_page: pages.1,
            chapter: None,
            score: 1.0,
        }
    }

    #[test]
    fn neighbours_join_with_their_overlap_once() {
        assert_eq!(
            join_overlapping("One. Two. Three. Four.", "Two. Three. Four. Five.").as_deref(),
            Some("One. Two. Three. Four. Five.")
        );
        assert_eq!(join_overlapping("Één. Twee.", "Drie."), None);
        assert_eq!(
            join_overlapping("He said: \"Go.\"", "\"Yes,\" he said."),
            None,
            "a quote mark is no overlap"
        );
        let merged = merge_adjacent(vec![
            result(4, (3, 3), "Gregory spoke of anarchy. Syme listened."),
            result(1, (1, 1), "A."),
            result(3, (2, 3), "B. Gregory spoke of anarchy."),
            result(5, (4, 4), "F."),
        ]);
        let got: Vec<(u32, u32, &str)> = merged
            .iter()
            .map(|r| (r.start_page, r.end_page, r.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (1, 1, "A."),
                (2, 3, "B. Gregory spoke of anarchy. Syme listened."),
                (4, 4, "F.")
            ]
        );
    }

    #[test]
    fn a_long_page_keeps_its_end_cut_at_a_word() {
        let text = "alpha beta gamma delta epsilon zeta eta theta";
        let tail = tail_within(text, 3);
        assert!(text.ends_with(tail) && estimate_tokens(tail) <= 3, "{tail:?}");
        assert!(!tail.starts_with(' ') && !tail.is_empty());
        assert_eq!(tail_within(text, 1000), text);
        assert_eq!(tail_within("日本語のテキスト", 1000), "日本語のテキスト");
        let cut = tail_within("日本語のテキストがとても長く続きます", 4);
        assert!(!cut.is_empty() && estimate_tokens(cut) <= 4, "{cut:?}");
    }

    #[test]
    fn sources_are_formatted_as_search_book_formats_passages() {
        let sources = [Source {
            book_id: "b".into(),
            start_page: 30,
            end_page: 31,
            text: "Gregory.".into(),
            via: SourceVia::ReaderPage,
        }];
        let text = format_sources(&sources);
        assert_eq!(text, "[Pages 30-31]\nGregory.");
        assert_eq!(sources_tokens(&sources), source_tokens(30, 31, "Gregory."));
    }
}
