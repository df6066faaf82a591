//! A passage cut to the sentences around a query's terms: the run of whole
//! sentences, at most so many characters, that holds the most of them. A
//! found passage costs fewer tokens this way, so more of them fit a small
//! context (and a small model reads less).

use crate::retrieval::lexical::tokenize::terms;
use crate::retrieval::text::sentences::split_sentences;

/// The run of whole sentences of `text`, at most `max_chars` characters
/// (joined by single spaces), holding the most occurrences of `query_terms`
/// (ties: the earliest); `text` itself when it fits. A first sentence longer
/// than `max_chars` is kept whole rather than cut.
pub fn focus(text: &str, query_terms: &[String], max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let sentences: Vec<(&str, usize, usize)> = split_sentences(text)
        .into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            let hits = terms(s).iter().filter(|t| query_terms.contains(t)).count();
            (s, s.chars().count(), hits)
        })
        .collect();
    let mut best = (0usize, 0usize, 0usize); // hits, start, end (exclusive)
    for start in 0..sentences.len() {
        let (mut chars, mut hits, mut end) = (0usize, 0usize, start);
        while end < sentences.len() {
            let next = chars + sentences[end].1 + usize::from(end > start);
            if next > max_chars && end > start {
                break;
            }
            chars = next;
            hits += sentences[end].2;
            end += 1;
        }
        if hits > best.0 || best.2 == 0 {
            best = (hits, start, end);
        }
    }
    let (_, start, end) = best;
    sentences[start..end]
        .iter()
        .map(|s| s.0)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(words: &str) -> Vec<String> {
        terms(words)
    }

    #[test]
    fn the_sentences_with_the_query_terms_are_kept() {
        let text = "It rained. Syme walked. The lamp was lit. Gregory spoke of anarchy. Syme answered him. The end came.";
        let got = focus(text, &query("gregory anarchy syme"), 45);
        assert_eq!(got, "Gregory spoke of anarchy. Syme answered him.");
        assert_eq!(focus(text, &query("syme"), 1000), text);
    }

    #[test]
    fn a_long_sentence_is_kept_whole_and_unicode_is_safe() {
        let text = "Ça été une très longue phrase sans fin, écrite pour ce test. Court.";
        assert_eq!(
            focus(text, &query("phrase"), 10),
            "Ça été une très longue phrase sans fin, écrite pour ce test."
        );
        assert_eq!(
            focus(text, &query("nothing"), 10),
            "Ça été une très longue phrase sans fin, écrite pour ce test."
        );
    }
}
