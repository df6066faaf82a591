//! The sources of a turn's answer: the book passages its system message
//! carried (the reader's pages, `alwaysRetrieve`) and those its `search_book`
//! calls returned, once each, in book order — with the check of the answer
//! against them.

use super::TurnState;
use crate::domain::{distinct_sources, Source, SourceVia};
use crate::domain::{SentenceCheck, SourceCheck};
use crate::retrieval::reader::grounding::check_answer;
use crate::retrieval::reader::passages::passages_in_text;
use crate::retrieval::reader::sentence_check::check_sentences;
use crate::tool::builtin::SEARCH_BOOK;
use crate::tool::shown_part;

/// Every passage the turn's model requests carried, for the book `book_id`;
/// a search result within the reader's pages is left out (they are there whole),
/// and so is what the model never read of a result longer than `max_result_chars`.
pub(super) fn turn_sources(state: &TurnState, book_id: Option<&str>, max_result_chars: usize) -> Vec<Source> {
    let Some(book_id) = book_id else {
        return Vec::new();
    };
    let carried = system_sources(state, book_id);
    let reader = carried.iter().find(|s| s.via == SourceVia::ReaderPage);
    let covered = |start: u32, end: u32| reader.is_some_and(|r| r.start_page <= start && end <= r.end_page);
    let searched = state
        .records
        .iter()
        .filter(|r| r.name == SEARCH_BOOK)
        .filter_map(|r| r.result.as_deref())
        .flat_map(|result| passages_in_text(shown_part(result, max_result_chars)))
        .filter(|(start, end, text)| !text.is_empty() && !covered(*start, *end))
        .map(|(start_page, end_page, text)| Source {
            book_id: book_id.to_owned(),
            start_page,
            end_page,
            text,
            via: SourceVia::SearchBook,
        });
    distinct_sources(carried.iter().cloned().chain(searched))
}

/// The passages of the turn's system message: its sources, or, for a turn
/// paused before sources were kept, those of its formatted passages.
pub(super) fn system_sources(state: &TurnState, book_id: &str) -> Vec<Source> {
    if !state.sources.is_empty() {
        return state.sources.clone();
    }
    let text = state.passages.as_deref().unwrap_or_default();
    passages_in_text(text)
        .into_iter()
        .map(|(start_page, end_page, text)| Source {
            book_id: book_id.to_owned(),
            start_page,
            end_page,
            text,
            via: SourceVia::AlwaysRetrieve,
        })
        .collect()
}

/// `answer` checked against `sources` and the user's `question`, sentence by
/// sentence too: a citation `[n]` names the `n`th of `numbered` (the
/// passages of the turn's system message, as numbered there). `None` when
/// the turn had no sources (not a book conversation, or nothing found).
pub(super) fn source_check(
    answer: &str,
    question: &str,
    sources: &[Source],
    numbered: &[Source],
) -> Option<SourceCheck> {
    if sources.is_empty() {
        return None;
    }
    let texts: Vec<&str> = sources.iter().map(|s| s.text.as_str()).collect();
    let mut check = check_answer(answer, question, &texts);
    let cited = |n: u32| {
        let passage = numbered.get((n as usize).checked_sub(1)?)?;
        sources.iter().position(|s| s.same_passage(passage))
    };
    check.sentences = check_sentences(answer, question, &texts, cited);
    check.grounded &= check.sentences.iter().all(|s| s.supported);
    Some(check)
}

/// The check of a quoted answer: every quote is the book's, so each is
/// supported, citing the passage it is from.
pub(super) fn quotes_check(quotes: &[(String, Source)], sources: &[Source]) -> Option<SourceCheck> {
    if sources.is_empty() {
        return None;
    }
    let sentences = quotes
        .iter()
        .map(|(text, from)| SentenceCheck {
            text: text.clone(),
            passages: sources
                .iter()
                .position(|s| s.same_passage(from))
                .map(|i| i as u32)
                .into_iter()
                .collect(),
            supported: true,
        })
        .collect();
    Some(SourceCheck {
        grounded: true,
        unsupported: Vec::new(),
        sentences,
        quoted_answer: None,
    })
}
