//! `retrieval.maxContextTokens`: how many tokens of passages a turn may add to
//! the prompt (the `alwaysRetrieve` system message, a `search_book` result).
//! Small local models have small context windows and read prompts slowly, so
//! the passages stop at the budget — best first, and always at least one.

use crate::domain::estimate_tokens;
use crate::retrieval::library::SearchResult;

/// The estimated tokens one passage costs as [`crate::retrieval::reader::passages::format_passages`]
/// writes it: its `[Pages X-Y]` line, its text and the blank line after it.
pub fn passage_tokens(result: &SearchResult) -> usize {
    let header = format!("[Pages {}-{}]\n", result.start_page, result.end_page);
    estimate_tokens(&header) + estimate_tokens(&result.text) + 1
}

/// Keeps the best passages whose estimated tokens fit `max_tokens` (no limit
/// when `None`); the first passage is kept even when it alone is over.
pub fn within_budget(mut results: Vec<SearchResult>, max_tokens: Option<usize>) -> Vec<SearchResult> {
    let Some(max_tokens) = max_tokens else {
        return results;
    };
    let mut used = 0;
    let keep = results
        .iter()
        .take_while(|result| {
            used += passage_tokens(result);
            used <= max_tokens
        })
        .count()
        .max(1);
    results.truncate(keep);
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A passage of `words` one-token words.
    fn passage(ordinal: u32, words: usize) -> SearchResult {
        SearchResult {
            book_id: "b".into(),
            ordinal,
            text: "word ".repeat(words),
            start_page: 1,
            end_page: 2,
            chapter: None,
            score: 1.0 - ordinal as f32 / 10.0,
        }
    }

    #[test]
    fn passages_stop_at_the_budget_best_first() {
        // Each passage: 200 tokens of text, a 7-token header, 1 for the gap.
        let results: Vec<_> = (0..5).map(|i| passage(i, 200)).collect();
        assert_eq!(passage_tokens(&results[0]), 208);
        let ordinals = |kept: Vec<SearchResult>| kept.iter().map(|r| r.ordinal).collect::<Vec<_>>();
        assert_eq!(ordinals(within_budget(results.clone(), None)), [0, 1, 2, 3, 4]);
        assert_eq!(ordinals(within_budget(results.clone(), Some(416))), [0, 1]);
        assert_eq!(ordinals(within_budget(results.clone(), Some(415))), [0]);
        assert_eq!(ordinals(within_budget(results.clone(), Some(624))), [0, 1, 2]);
        assert_eq!(ordinals(within_budget(results, Some(100_000))), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn one_passage_is_kept_even_over_the_budget() {
        let results = vec![passage(0, 200), passage(1, 3)];
        let kept = within_budget(results, Some(1));
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].ordinal, 0);
        assert!(within_budget(Vec::new(), Some(1)).is_empty());
    }
}
