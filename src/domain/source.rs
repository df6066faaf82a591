//! The passages an answer was given: its sources, shown under the answer so
//! the reader can check it, stored with it so a reload shows them again.

use serde::Serialize;

use crate::json::from_json::FromJson;

/// How a passage came to be in front of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, FromJson)]
pub enum SourceVia {
    /// The reader's current page (or the one before): always in a book conversation's context.
    #[serde(rename = "readerPage")]
    ReaderPage,
    /// Retrieved for the user's message before the model was called (`alwaysRetrieve`).
    #[serde(rename = "alwaysRetrieve")]
    AlwaysRetrieve,
    /// Returned by a `search_book` call the model made.
    #[serde(rename = "search_book")]
    SearchBook,
}

impl SourceVia {
    /// The name the JSON records use (`readerPage`, `alwaysRetrieve`, `search_book`).
    pub fn name(self) -> &'static str {
        match self {
            SourceVia::ReaderPage => "readerPage",
            SourceVia::AlwaysRetrieve => "alwaysRetrieve",
            SourceVia::SearchBook => "search_book",
        }
    }
}

/// One passage of a book that a model request carried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// The book.
    pub book_id: String,
    /// The passage's first page.
    pub start_page: u32,
    /// Its last page.
    pub end_page: u32,
    /// The passage as the model read it.
    pub text: String,
    /// How it got there.
    pub via: SourceVia,
}

impl Source {
    /// Whether `other` is the same passage (book, pages and text), whatever brought it.
    pub fn same_passage(&self, other: &Source) -> bool {
        self.book_id == other.book_id
            && self.start_page == other.start_page
            && self.end_page == other.end_page
            && self.text == other.text
    }
}

/// Whether an answer keeps to its sources (`retrieval::grounding::check_answer`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct SourceCheck {
    /// False when the answer names something no source names, or most of its
    /// content words are in none of them: the page should say "not found in the book".
    pub grounded: bool,
    /// The answer's names and content words found in no source, as written, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsupported: Vec<String>,
    /// Each sentence of the answer, checked against the passages it cites.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sentences: Vec<SentenceCheck>,
    /// When no sentence is supported: the quoted answer from the same
    /// passages (`retrieval::quotes`), to show under the model's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quoted_answer: Option<String>,
}

/// One sentence of an answer, checked against the passages it cites (or
/// all of them when it cites none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct SentenceCheck {
    /// The sentence as the answer has it (its citations included).
    pub text: String,
    /// The passages it cites: indices into the answer's `sources`.
    #[serde(default)]
    pub passages: Vec<u32>,
    /// Whether its names and content words are in those passages (or the question).
    pub supported: bool,
}

/// Why an answer is the book's own words (quotes chosen by
/// `retrieval::quotes`) rather than a model's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, FromJson)]
pub enum QuoteReason {
    /// The provider is `{ kind: 'quotes' }`: quoting is how it answers.
    #[serde(rename = "provider")]
    Provider,
    /// The model failed (network, endpoint, a model not loaded) and the quotes stand in.
    #[serde(rename = "fallback")]
    Fallback,
}

/// An answer made of quotes from the book, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct Quoted {
    /// Why the book's words answer.
    pub reason: QuoteReason,
    /// For a fallback, the model's error as it was reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `sources` without repeats (the first of each passage kept), in book order
/// (by first page, then last page), each at most once.
pub fn distinct_sources(sources: impl IntoIterator<Item = Source>) -> Vec<Source> {
    let mut kept: Vec<Source> = Vec::new();
    for source in sources {
        if !kept.iter().any(|k| k.same_passage(&source)) {
            kept.push(source);
        }
    }
    super::sort_by(&mut kept, |a, b| {
        (a.start_page, a.end_page).cmp(&(b.start_page, b.end_page))
    });
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(start_page: u32, text: &str, via: SourceVia) -> Source {
        Source {
            book_id: "b".into(),
            start_page,
            end_page: start_page + 1,
            text: text.into(),
            via,
        }
    }

    #[test]
    fn via_names_match_the_egress_ledger() {
        let json = serde_json::to_string(&[
            SourceVia::ReaderPage,
            SourceVia::AlwaysRetrieve,
            SourceVia::SearchBook,
        ])
        .unwrap();
        assert_eq!(json, r#"["readerPage","alwaysRetrieve","search_book"]"#);
        let s = serde_json::to_value(source(3, "x", SourceVia::ReaderPage)).unwrap();
        assert_eq!(s["bookId"], "b");
        assert_eq!(s["startPage"], 3);
        assert_eq!(s["via"], SourceVia::ReaderPage.name());
    }

    #[test]
    fn repeats_go_and_book_order_comes() {
        let kept = distinct_sources([
            source(9, "late", SourceVia::AlwaysRetrieve),
            source(2, "early", SourceVia::SearchBook),
            source(9, "late", SourceVia::SearchBook),
        ]);
        let pages: Vec<(u32, SourceVia)> = kept.iter().map(|s| (s.start_page, s.via)).collect();
        assert_eq!(
            pages,
            [(2, SourceVia::SearchBook), (9, SourceVia::AlwaysRetrieve)]
        );
    }
}
