//! The passage text the model reads: `[Pages X-Y]` then the passage, blank
//! lines between; written by `search_book` and `alwaysRetrieve`, and read
//! back for a turn's sources and the egress ledger.

use crate::retrieval::library::search_options::SearchResult;
use crate::retrieval::reader::context::passage_header;

/// What the tool answers when nothing qualifies.
pub const NO_PASSAGES: &str = "No relevant passages found.";

/// Formats passages as the model reads them: `[Pages X-Y]` then the text, blank lines between.
pub fn format_passages(results: &[SearchResult]) -> String {
    if results.is_empty() {
        return NO_PASSAGES.to_owned();
    }
    results
        .iter()
        .map(|r| format!("{}\n{}", passage_header(r.start_page, r.end_page), r.text))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The page ranges of the passages in text [`format_passages`] wrote:
/// each line `[Pages X-Y]`, in order.
pub fn passage_pages(text: &str) -> Vec<(u32, u32)> {
    text.lines().filter_map(header_pages).collect()
}

/// The passages in text [`format_passages`] wrote: each `[Pages X-Y]`
/// header's page range and the text up to the next header (trimmed).
pub fn passages_in_text(text: &str) -> Vec<(u32, u32, String)> {
    let mut passages: Vec<(u32, u32, String)> = Vec::new();
    for line in text.lines() {
        match header_pages(line) {
            Some((start, end)) => passages.push((start, end, String::new())),
            None => {
                if let Some((_, _, body)) = passages.last_mut() {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    for (_, _, body) in &mut passages {
        *body = body.trim().to_owned();
    }
    passages
}

/// The page range of a `[Pages X-Y]` line, numbered (`[2] [Pages X-Y]`) or not.
fn header_pages(line: &str) -> Option<(u32, u32)> {
    let unnumbered = match line.strip_prefix('[').and_then(|l| l.split_once("] ")) {
        Some((number, rest)) if number.bytes().all(|b| b.is_ascii_digit()) && !number.is_empty() => rest,
        _ => line,
    };
    let range = unnumbered.strip_prefix("[Pages ")?.strip_suffix(']')?;
    let (start, end) = range.split_once('-')?;
    Some((start.parse().ok()?, end.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(start_page: u32, end_page: u32, text: &str) -> SearchResult {
        SearchResult {
            book_id: "b".into(),
            ordinal: 0,
            text: text.into(),
            start_page,
            end_page,
            chapter: None,
            score: 1.0,
        }
    }

    #[test]
    fn passage_pages_reads_back_what_format_sources_wrote() {
        let sources = [crate::domain::Source {
            book_id: "b".into(),
            start_page: 30,
            end_page: 31,
            text: "Gregory.".into(),
            via: crate::domain::SourceVia::ReaderPage,
        }];
        let text = crate::retrieval::reader::context::format_sources(&sources);
        assert_eq!(passage_pages(&text), [(30, 31)]);
    }

    #[test]
    fn passage_pages_reads_back_what_format_passages_wrote() {
        let text = format_passages(&[
            passage(3, 4, "Syme met Gregory.\n[Pages of a diary]"),
            passage(12, 12, "日本語"),
        ]);
        assert_eq!(passage_pages(&text), [(3, 4), (12, 12)]);
        assert!(passage_pages(NO_PASSAGES).is_empty());
        let passages = passages_in_text(&text);
        assert_eq!(
            passages[0],
            (3, 4, "Syme met Gregory.\n[Pages of a diary]".to_owned())
        );
        assert_eq!(passages[1], (12, 12, "日本語".to_owned()));
        assert!(passages_in_text(NO_PASSAGES).is_empty());
    }
}
