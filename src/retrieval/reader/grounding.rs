//! Whether an answer keeps to its sources: the names and content words of
//! the answer that appear in none of the passages it was given (nor in the
//! question). A small model that invents ("a recipient of the Fields
//! Medal") names things the book never says; the page marks such an answer
//! "not found in the book" and still shows its sources.

use crate::domain::SourceCheck;
use crate::retrieval::lexical::tokenize::{is_cjk, terms};
use crate::retrieval::reader::query::is_stop_term;

/// Words an answer about a book uses of itself, not of the book.
const ANSWER_WORDS: &[&str] = &[
    "passage",
    "passages",
    "page",
    "pages",
    "book",
    "text",
    "reader",
    "story",
    "novel",
    "chapter",
    "mention",
    "mentioned",
    "mentions",
    "say",
    "says",
    "said",
    "seem",
    "seems",
    "appear",
    "appears",
    "know",
    "known",
    "find",
    "found",
    "answer",
    "question",
    "information",
    "describe",
    "described",
    "yes",
    "sorry",
    "however",
    "based",
    "given",
    "according",
    "provided",
];

/// A content word counts as supported when a source word shares this many leading characters with it.
const STEM_CHARS: usize = 5;

/// The first [`STEM_CHARS`] characters of a lower-case term.
fn stem(term: &str) -> String {
    term.chars().take(STEM_CHARS).collect()
}

/// Checks `answer` against the passages it was given and the `question`:
/// unsupported are its content words (not stop words, question words or
/// words about the book itself, at least three characters) whose stem no
/// source or question word has. Ungrounded: an unsupported name (a word
/// capitalised inside a sentence), or more than half of at least four
/// content words unsupported.
pub fn check_answer(answer: &str, question: &str, sources: &[&str]) -> SourceCheck {
    let support = word_support(answer, question, sources);
    let mostly_unsupported = support.content >= 4 && support.unsupported.len() * 2 > support.content;
    SourceCheck {
        grounded: support.names == 0 && !mostly_unsupported,
        unsupported: support.unsupported,
        sentences: Vec::new(),
        quoted_answer: None,
    }
}

/// How much of a text its sources support, word by word.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WordSupport {
    /// Its content words (as [`check_answer`] counts them).
    pub content: usize,
    /// Of those, the names (capitalised inside a sentence) no source has.
    pub names: usize,
    /// The content words no source has, as written, once each, in order.
    pub unsupported: Vec<String>,
}

/// The content words of `answer` that neither `sources` nor `question` hold.
pub fn word_support(answer: &str, question: &str, sources: &[&str]) -> WordSupport {
    let mut known: Vec<String> = Vec::new();
    for text in sources.iter().copied().chain([question]) {
        known.extend(terms(text).iter().map(|t| stem(t)));
    }
    known.sort_unstable();
    known.dedup();
    let mut support = WordSupport::default();
    for (word, is_name) in words(answer) {
        // The index's terms of the word: itself lower-cased, or a CJK run's bigrams.
        for term in terms(&word) {
            let cjk = term.chars().next().is_some_and(is_cjk);
            let short = term.chars().count() < 3;
            if !cjk && (short || is_stop_term(&term) || ANSWER_WORDS.contains(&term.as_str())) {
                continue;
            }
            support.content += 1;
            if known.binary_search(&stem(&term)).is_ok() {
                continue;
            }
            support.names += usize::from(is_name && !cjk);
            let shown = if cjk { term } else { word.clone() };
            if !support.unsupported.contains(&shown) {
                support.unsupported.push(shown);
            }
        }
    }
    support
}

/// The words of `text` as written, each with whether it is a name: capitalised
/// and not the first word of a sentence.
fn words(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut sentence_start = true;
    let mut word = String::new();
    let flush = |word: &mut String, sentence_start: &mut bool, out: &mut Vec<(String, bool)>| {
        if !word.is_empty() {
            let capital = word.chars().next().is_some_and(char::is_uppercase);
            out.push((std::mem::take(word), capital && !*sentence_start));
            *sentence_start = false;
        }
    };
    for c in text.chars() {
        let mark = ('\u{300}'..='\u{36f}').contains(&c);
        if c.is_alphanumeric() || mark || (c == '\'' && !word.is_empty()) {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut sentence_start, &mut out);
        if matches!(c, '.' | '!' | '?' | ':' | '\n' | '"' | '“' | '*' | '-' | '(') {
            sentence_start = true;
        }
    }
    flush(&mut word, &mut sentence_start, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSAGE: &str =
        "Lucian Gregory, the anarchic poet, declared that the artist is identical with the anarchist. \
                           Professor de Worms was a very old man with a long white beard.";

    #[test]
    fn an_invented_name_is_not_grounded() {
        let check = check_answer(
            "Professor de Worms is a famous mathematician and recipient of the Fields Medal.",
            "Who is Professor de Worms?",
            &[PASSAGE],
        );
        assert!(!check.grounded);
        assert!(check.unsupported.contains(&"Fields".to_owned()), "{check:?}");
        assert!(check.unsupported.contains(&"Medal".to_owned()));
    }

    #[test]
    fn an_answer_from_the_passage_is_grounded() {
        let check = check_answer(
            "Gregory is an anarchic poet: he says the artist is identical with the anarchist.",
            "Who is Gregory and what does he believe?",
            &[PASSAGE],
        );
        assert!(check.grounded, "{check:?}");
        assert!(check.unsupported.is_empty(), "{check:?}");
        let declines = check_answer("The passages do not say.", "Who is Sunday?", &[PASSAGE]);
        assert!(declines.grounded, "{declines:?}");
    }

    #[test]
    fn cjk_and_decomposed_accents_are_compared_as_the_index_reads_them() {
        let passage = "グレゴリーは詩人で、無政府主義者だと言った。Le cafe\u{301} était plein.";
        let check = check_answer(
            "グレゴリーは詩人です。無政府主義者。",
            "グレゴリーとは誰？",
            &[passage],
        );
        assert!(check.grounded, "{check:?}");
        let accents = check_answer("The cafe\u{301} était plein.", "Where?", &[passage]);
        assert!(accents.unsupported.is_empty(), "{accents:?}");
        let invented = check_answer("東京で数学の賞を受けた。", "誰？", &[passage]);
        assert!(!invented.grounded, "{invented:?}");
    }

    #[test]
    fn mostly_invented_content_is_not_grounded_even_without_names() {
        let check = check_answer(
            "He was a sailor who loved whaling voyages and harpoons.",
            "Who is Gregory?",
            &[PASSAGE],
        );
        assert!(!check.grounded, "{check:?}");
        let sentence_start = words("Fields. Medal of the Fields");
        assert_eq!(sentence_start[0], ("Fields".into(), false));
        assert_eq!(sentence_start[1], ("Medal".into(), false));
        assert_eq!(sentence_start[4], ("Fields".into(), true));
    }
}
