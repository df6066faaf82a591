//! The passages put in front of the model for a reader's question: the
//! reader's own page (and the ones just before it), then the passages a
//! search finds up to that page, within a token budget — never past the page.
//! What wins here was measured on reader questions (`tests/native_reader_eval.rs`,
//! `npm run bench`): see [`ReaderContextPlan::default`].

use super::focus::focus;
use super::lexical::tokenize::terms;
use super::library::{Library, SearchOptions, SearchResult};
use super::reader_query::{is_stop_term, reader_query};
use super::search_mode::SearchMode;
use crate::cancel::CancelToken;
use crate::domain::{distinct_sources, estimate_tokens, Source, SourceVia};
use crate::error::Result;

/// How the context for one question is put together.
#[derive(Debug, Clone, Copy, PartialEq)]
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
            reader_pages: 2,
            passages: 10,
            introductions: 2,
            passage_chars: Some(400),
            mode: Some(SearchMode::Lexical),
            rewrite_query: true,
            max_tokens: Some(1500),
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
        let pages = self
            .reader_pages(book_id, page, plan.reader_pages, &mut budget)
            .await?;
        let first_reader_page = pages.first().map_or(u32::MAX, |s| s.start_page);
        let found = if plan.passages > 0 {
            self.ranked_passages(book_id, question, page, plan, cancel)
                .await?
        } else {
            Vec::new()
        };
        let introductions = self
            .introductions(book_id, question, page, plan.introductions)
            .await?;
        let wanted = plan.passages + introductions.len();
        let query_terms = terms(&reader_query(question));
        let mut chosen: Vec<SearchResult> = Vec::new();
        for mut result in introductions.into_iter().chain(found) {
            if chosen.len() == wanted {
                break;
            }
            if chosen.iter().any(|c| c.ordinal == result.ordinal) {
                continue;
            }
            // The reader's pages are there already, whole.
            if result.start_page >= first_reader_page {
                continue;
            }
            if let Some(max_chars) = plan.passage_chars {
                result.text = focus(&result.text, &query_terms, max_chars);
            }
            let cost = source_tokens(result.start_page, result.end_page, &result.text);
            // The best passage is kept even over the budget when it would be the only one.
            let only = chosen.is_empty() && pages.is_empty();
            if cost > budget && !only {
                continue;
            }
            budget = budget.saturating_sub(cost);
            chosen.push(result);
        }
        let searched = merge_adjacent(chosen).into_iter().map(|r| Source {
            book_id: r.book_id,
            start_page: r.start_page,
            end_page: r.end_page,
            text: r.text,
            via: plan.via,
        });
        Ok(distinct_sources(searched.chain(pages)))
    }

    /// The last `count` pages up to `page`, as one source, within `budget`
    /// (taking what they cost from it): the earlier pages go first; the
    /// reader's page stays, cut to its end if it alone is over.
    async fn reader_pages(
        &self,
        book_id: &str,
        page: u32,
        count: u32,
        budget: &mut usize,
    ) -> Result<Vec<Source>> {
        if count == 0 || page == 0 {
            return Ok(Vec::new());
        }
        let first = page.saturating_sub(count - 1).max(1);
        let mut texts = Vec::new();
        for number in first..=page {
            texts.push((number, self.page(book_id, number).await?.text));
        }
        while texts.len() > 1 && joined_tokens(&texts) > *budget {
            texts.remove(0);
        }
        if texts.len() == 1 && joined_tokens(&texts) > *budget {
            let (number, text) = &texts[0];
            let header = source_tokens(*number, *number, "");
            texts[0].1 = tail_within(text, budget.saturating_sub(header)).to_owned();
        }
        *budget = budget.saturating_sub(joined_tokens(&texts));
        let start_page = texts[0].0;
        let text = texts
            .into_iter()
            .map(|(_, t)| t.trim().to_owned())
            .collect::<Vec<_>>()
            .join("\n\n");
        Ok(vec![Source {
            book_id: book_id.to_owned(),
            start_page,
            end_page: page,
            text,
            via: SourceVia::ReaderPage,
        }])
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
            k: Some((plan.passages * 4).clamp(20, 100)),
            max_page: Some(page),
            mode: plan.mode,
        };
        self.search(&query, &options, cancel).await
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
    starts.get(at).map_or("", |&i| text[i..].trim_start())
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

/// `a` then `b`, the longest end of `a` that `b` starts with written once;
/// `None` when they share no such text (a cut passage lost its overlap).
pub fn join_overlapping(a: &str, b: &str) -> Option<String> {
    let at = a
        .char_indices()
        .map(|(i, _)| i)
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
            join_overlapping("One. Two. Three.", "Two. Three. Four.").as_deref(),
            Some("One. Two. Three. Four.")
        );
        assert_eq!(join_overlapping("Één. Twee.", "Drie."), None);
        let merged = merge_adjacent(vec![
            result(4, (3, 3), "C. D."),
            result(1, (1, 1), "A."),
            result(3, (2, 3), "B. C."),
            result(5, (4, 4), "F."),
        ]);
        let got: Vec<(u32, u32, &str)> = merged
            .iter()
            .map(|r| (r.start_page, r.end_page, r.text.as_str()))
            .collect();
        assert_eq!(got, [(1, 1, "A."), (2, 3, "B. C. D."), (4, 4, "F.")]);
    }

    #[test]
    fn a_long_page_keeps_its_end_cut_at_a_word() {
        let text = "alpha beta gamma delta epsilon zeta eta theta";
        let tail = tail_within(text, 3);
        assert!(text.ends_with(tail) && estimate_tokens(tail) <= 3, "{tail:?}");
        assert!(!tail.starts_with(' ') && !tail.is_empty());
        assert_eq!(tail_within(text, 1000), text);
        assert_eq!(tail_within("日本語のテキスト", 1000), "日本語のテキスト");
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
        assert_eq!(super::super::search_tool::passage_pages(&text), [(30, 31)]);
        assert_eq!(sources_tokens(&sources), source_tokens(30, 31, "Gregory."));
    }
}
