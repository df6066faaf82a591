//! A reader's question as a search query: the words that name what is asked
//! about (names, epithets, nouns, verbs), without the question words and the
//! function words that every passage holds ("who is the Secretary really?"
//! searches `Secretary`).

use crate::retrieval::lexical::tokenize::terms;

/// Words that say how a question is asked, not what it is about.
const QUESTION_WORDS: &[&str] = &[
    "who", "whom", "whose", "what", "which", "when", "where", "why", "how", "really", "actually", "exactly",
    "tell", "explain", "describe", "happen", "happened", "happens", "mean", "means", "meant", "story",
    "book", "chapter", "page", "far", "so", "now", "just",
];

/// English function words.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "being",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "during",
    "each",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "get",
    "got",
    "make",
    "made",
    "let",
    "also",
];

/// Whether `term` (lower-case) carries no meaning of its own in a question.
pub fn is_stop_term(term: &str) -> bool {
    QUESTION_WORDS.contains(&term) || STOP_WORDS.contains(&term)
}

/// `question` without its question and function words, the rest in order
/// (lower-case, space-separated); the question itself when nothing is left.
pub fn reader_query(question: &str) -> String {
    let kept: Vec<String> = terms(question).into_iter().filter(|t| !is_stop_term(t)).collect();
    if kept.is_empty() {
        question.to_owned()
    } else {
        kept.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_epithets_stay_question_words_go() {
        assert_eq!(reader_query("Who is the Secretary really?"), "secretary");
        assert_eq!(
            reader_query("Who is Gregory and what does he believe?"),
            "gregory believe"
        );
        assert_eq!(
            reader_query("Why did the old professor follow Syme through the snow?"),
            "old professor follow syme snow"
        );
    }

    #[test]
    fn a_question_of_only_stop_words_is_searched_as_it_is() {
        assert_eq!(reader_query("What happened?"), "What happened?");
        assert_eq!(reader_query("Qui est Syme ?"), "qui est syme");
        assert_eq!(reader_query("日本語の本"), "日本 本語 語の の本");
    }
}
