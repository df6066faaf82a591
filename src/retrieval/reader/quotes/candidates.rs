//! The sentences a quoted answer may choose from: those of the passages in
//! front of the reader, once each, with the terms they are scored on.

use crate::domain::Source;
use crate::retrieval::lexical::tokenize::terms;
use crate::retrieval::text::sentences::split_sentences;

use super::MAX_SENTENCE_WORDS;

/// Sentences of fewer words say too little to quote ("Yes.", a heading).
const MIN_SENTENCE_WORDS: usize = 4;

/// One sentence of a passage.
#[derive(Debug)]
pub struct Sentence<'a> {
    /// The passage it is in (an index into the sources).
    pub passage: usize,
    /// That passage's last page.
    pub end_page: u32,
    /// Its text, a slice of the passage's.
    pub text: &'a str,
    /// Its words.
    pub words: usize,
    /// The stems of its terms, in order ([`stem`]).
    pub stems: Vec<String>,
    /// Its lower-case terms, in order.
    pub terms: Vec<String>,
}

/// The sentences of `sources` worth quoting, in order; a sentence two
/// overlapping passages share is kept once.
pub fn candidates(sources: &[Source]) -> Vec<Sentence<'_>> {
    let mut out: Vec<Sentence<'_>> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for (passage, source) in sources.iter().enumerate() {
        for text in sentences_of(&source.text) {
            let words = text.split_whitespace().count();
            if !(MIN_SENTENCE_WORDS..=MAX_SENTENCE_WORDS).contains(&words) || is_heading(text) || is_cut(text)
            {
                continue;
            }
            let key = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let terms = terms(text);
            out.push(Sentence {
                passage,
                end_page: source.end_page,
                text,
                words,
                stems: terms.iter().map(|t| stem(t)).collect(),
                terms,
            });
        }
    }
    out
}

/// Titles whose full stop ends no sentence.
const ABBREVIATIONS: &[&str] = &[
    "Mr.", "Mrs.", "Dr.", "St.", "Mme.", "Messrs.", "Prof.", "Rev.", "Col.", "Capt.",
];

/// The sentences of `text` as slices of it: [`split_sentences`]' with a
/// sentence ending in a title ("Dr.") or followed by one that starts in
/// lower case ("?" he asked) joined to the next, and the quote marks that
/// close the sentence before taken off its start.
fn sentences_of(text: &str) -> Vec<&str> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut joins_next = false;
    for sentence in split_sentences(text) {
        // A slice of `text`: its offset is where it starts.
        let start = sentence.as_ptr() as usize - text.as_ptr() as usize;
        let end = start + sentence.len();
        let continues = sentence.starts_with(char::is_lowercase);
        match spans.last_mut() {
            Some(last) if joins_next || continues => last.1 = end,
            _ => spans.push((start, end)),
        }
        let last_word = sentence.split_whitespace().last().unwrap_or_default();
        joins_next = ABBREVIATIONS.contains(&last_word);
    }
    spans
        .into_iter()
        .map(|(start, end)| trim_stray_quotes(&text[start..end]))
        .collect()
}

/// `sentence` without a quote mark that closes the sentence before it (a
/// quote followed by a space at its start) or opens the next (one at its end).
fn trim_stray_quotes(mut sentence: &str) -> &str {
    let quote = |c: char| matches!(c, '"' | '”' | '\'' | '’');
    loop {
        let mut chars = sentence.chars();
        match (chars.next(), chars.next()) {
            (Some(q), Some(w)) if quote(q) && w.is_whitespace() => sentence = chars.as_str().trim_start(),
            _ => break,
        }
    }
    if let Some(rest) = sentence
        .strip_suffix(['"', '“'])
        .filter(|r| r.ends_with(char::is_whitespace))
    {
        sentence = rest.trim_end();
    }
    sentence
}

/// The end of a sentence cut by the passage's start: it opens in lower case
/// ("asked the staring Gregory."), so what it ends is not in front of the reader.
fn is_cut(text: &str) -> bool {
    text.starts_with(char::is_lowercase)
}

/// A heading or a cut fragment: no lower-case letter at all, or a chapter's title run into its first line.
fn is_heading(text: &str) -> bool {
    let shouting = text
        .split_whitespace()
        .take(3)
        .all(|w| !w.chars().any(char::is_lowercase));
    shouting || !text.chars().any(char::is_lowercase)
}

/// The characters of a term compared between question and sentence: its
/// first five (so *believe* meets *belief*, *anarchist* meets *anarchy*).
pub const STEM_CHARS: usize = 5;

/// The first [`STEM_CHARS`] characters of a lower-case term.
pub fn stem(term: &str) -> String {
    term.chars().take(STEM_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::SourceVia;

    fn source(text: &str) -> Source {
        Source {
            book_id: "b".into(),
            start_page: 1,
            end_page: 1,
            text: text.into(),
            via: SourceVia::AlwaysRetrieve,
        }
    }

    #[test]
    fn short_sentences_headings_and_repeats_are_left_out() {
        let a =
            source("CHAPTER II. THE SECRET OF GABRIEL SYME\n\nYes. Syme walked along the embankment slowly.");
        let b = source("Syme walked along the   embankment slowly. Then the lamp went out at once.");
        let c = source("\"Go.\" \"Must you go now?\" he asked Dr. Bull of the road. \"");
        let sources = [a, b, c];
        let got = candidates(&sources);
        let texts: Vec<&str> = got.iter().map(|s| s.text).collect();
        assert_eq!(
            texts,
            [
                "Syme walked along the embankment slowly.",
                "Then the lamp went out at once.",
                "\"Must you go now?\" he asked Dr. Bull of the road."
            ]
        );
        assert_eq!(got[1].passage, 1);
        assert_eq!(got[0].stems[0], "syme");
        assert_eq!(got[0].stems[4], "emban");
    }

    #[test]
    fn a_sentence_cut_by_the_passage_start_is_left_out() {
        let cut =
            source("asked the staring Gregory. \"Don't you see we've checkmated each other?\" cried Syme.");
        let texts: Vec<&str> = candidates(std::slice::from_ref(&cut))
            .iter()
            .map(|s| s.text)
            .collect();
        assert_eq!(
            texts,
            ["\"Don't you see we've checkmated each other?\" cried Syme."]
        );
    }
}
