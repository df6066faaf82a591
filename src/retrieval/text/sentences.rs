//! Sentence boundaries: a hand-written subset of UAX #29 for Latin, Arabic,
//! Devanagari and CJK text. (The `unicode-segmentation` crate does the full
//! algorithm but would add 14 KB gzip to the package; on the cases here it
//! splits the same way.)

/// Terminators that end a sentence before whitespace or the end of the text
/// (Latin, Arabic, Urdu, Devanagari).
const TERMINATORS: &[char] = &['.', '!', '?', '؟', '۔', '।', '॥', '‼', '⁇', '⁈', '⁉'];

/// Terminators of scripts written without spaces: the sentence ends right after them.
const WIDE_TERMINATORS: &[char] = &['。', '！', '？', '．', '｡'];

/// Closing quotes and brackets that stay with the sentence they end.
#[rustfmt::skip]
const CLOSERS: &[char] = &[
    '"', '\'', ')', ']', '”', '’', '»', '›', '」', '』', '）', '】', '〕', '〉', '》', '〗', '〙', '〛', '］', '｝',
    '｣', '〞', '〟', '＂', '＇',
];

/// Whether a sentence ending in `terminator` (then more terminators or
/// closers, `wide` if any is a CJK one) ends before the text `next`.
fn ends_before(terminator: char, wide: bool, next: &str) -> bool {
    match next.chars().next() {
        None => true,
        // "３．１４" is a number, not two sentences.
        Some(d) if wide => !(terminator == '．' && (d.is_ascii_digit() || ('０'..='９').contains(&d))),
        // "e.g. the": a full stop before a lower-case word ends no sentence.
        Some(d) if d.is_whitespace() && terminator == '.' => {
            !next.trim_start().starts_with(char::is_lowercase)
        }
        Some(d) => d.is_whitespace(),
    }
}

/// The offsets where sentences of `text` end, in order: after `.`, `!`, `?`
/// and their kin (with closing quotes or brackets) before whitespace; right
/// after the CJK terminators `。！？．｡`; and at blank lines. Lazy: a caller
/// may stop early.
pub fn sentence_ends(text: &str) -> impl Iterator<Item = usize> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        while let Some((i, c)) = chars.next() {
            let paragraph = c == '\n' && text[i + 1..].starts_with('\n');
            let mut wide = WIDE_TERMINATORS.contains(&c);
            if !(paragraph || wide || TERMINATORS.contains(&c)) {
                continue;
            }
            let mut end = i + c.len_utf8();
            let continues =
                |d: char| CLOSERS.contains(&d) || TERMINATORS.contains(&d) || WIDE_TERMINATORS.contains(&d);
            while let Some(&(j, d)) = chars.peek().filter(|&&(_, d)| !paragraph && continues(d)) {
                wide |= WIDE_TERMINATORS.contains(&d);
                end = j + d.len_utf8();
                chars.next();
            }
            if paragraph || ends_before(c, wide, &text[end..]) {
                return Some(end);
            }
        }
        None
    })
}

/// The sentences of `text`, trimmed, empty ones left out.
pub fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for end in sentence_ends(text) {
        out.push(&text[start..end]);
        start = end;
    }
    out.push(&text[start..]);
    out.into_iter().map(str::trim).filter(|s| !s.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_after_terminators_and_quotes() {
        let s = split_sentences("He said \"Stop.\" Then he left! Did he? Yes.\n\nNew paragraph without end");
        assert_eq!(
            s,
            [
                "He said \"Stop.\"",
                "Then he left!",
                "Did he?",
                "Yes.",
                "New paragraph without end"
            ]
        );
        assert_eq!(
            split_sentences("Mr. Smith paid 3.5 dollars."),
            ["Mr.", "Smith paid 3.5 dollars."]
        );
    }

    #[test]
    fn cjk_and_other_scripts_split_into_sentences() {
        assert_eq!(
            split_sentences("吾輩は猫である。名前はまだ無い！どこで生れたか？とんと見当がつかぬ．終り｡"),
            [
                "吾輩は猫である。",
                "名前はまだ無い！",
                "どこで生れたか？",
                "とんと見当がつかぬ．",
                "終り｡"
            ]
        );
        assert_eq!(
            split_sentences("「はい。」と彼は言った。本当に？！そうだ。"),
            ["「はい。」", "と彼は言った。", "本当に？！", "そうだ。"]
        );
        assert_eq!(
            split_sentences("مرحبا بالعالم. كيف حالك؟ أنا بخير."),
            ["مرحبا بالعالم.", "كيف حالك؟", "أنا بخير."]
        );
        assert_eq!(
            split_sentences("Done.\u{a0}Next one!\u{3000}Last 🎉."),
            ["Done.", "Next one!", "Last 🎉."]
        );
    }

    #[test]
    fn ends_are_found_lazily_and_numbers_are_not_sentences() {
        assert_eq!(
            sentence_ends("One. Two! ３．１４です。").collect::<Vec<_>>(),
            [4, 9, 31]
        );
        assert_eq!(split_sentences("e.g. the cat. Done"), ["e.g. the cat.", "Done"]);
    }
}
