//! The terms of a text, for BM25: words, lower-cased (letters, digits and
//! combining marks; an apostrophe between two letters stays inside a word,
//! and a final possessive `'s` is dropped), and runs of CJK characters (Han,
//! Hiragana, Katakana, Hangul) cut into overlapping character bigrams (a lone
//! CJK character is its own term). Everything else separates terms.
//!
//! Hand-written rather than `unicode-segmentation`'s word breaks: the page
//! module needs it (queries, and the index of a book stored before lexical
//! search). Measured (release build, node's gzip -9 of `lectern_bg.wasm`):
//! UAX #29 words through `unicode-segmentation` 1.13 cost 9.3 KB more than
//! these rules, which use only the `char` tables the module already has
//! (the hashed embedder's); BM25 needs terms, not exact word boundaries.

/// The longest term kept, in bytes (longer runs are cut at a char boundary):
/// no real word is this long, and it bounds what one term costs to store.
pub const MAX_TERM_BYTES: usize = 64;

/// What one character is to the tokenizer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Part of a word.
    Word,
    /// A CJK character: bigrams.
    Cjk,
    /// An apostrophe (`'` or `’`): inside a word only between two word characters.
    Apostrophe,
    /// Anything else.
    Other,
}

fn class(c: char) -> Class {
    match c {
        '\'' | '\u{2019}' => Class::Apostrophe,
        _ if is_cjk(c) => Class::Cjk,
        _ if c.is_alphanumeric() || is_combining(c) => Class::Word,
        _ => Class::Other,
    }
}

/// Han (with extensions and compatibility ideographs), Hiragana, Katakana
/// (with its half-width forms) and Hangul syllables and jamo.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF // Hangul jamo
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3130..=0x318F // Hangul compatibility jamo
        | 0x31F0..=0x31FF // Katakana phonetic extensions
        | 0x3400..=0x4DBF // Han extension A
        | 0x4E00..=0x9FFF // Han
        | 0xA960..=0xA97F // Hangul jamo extended A
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0xD7B0..=0xD7FF // Hangul jamo extended B
        | 0xF900..=0xFAFF // Han compatibility
        | 0xFF66..=0xFF9F // half-width Katakana
        | 0xFFA0..=0xFFDC // half-width Hangul
        | 0x20000..=0x3134F // Han extensions B-G
    )
}

/// Combining marks that follow a letter in decomposed text (`e` + U+0301).
fn is_combining(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F
    )
}

/// The terms of `text`, in order (repeats included).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        match class(chars[i].1) {
            Class::Word => i = word(text, &chars, i, &mut out),
            Class::Cjk => i = cjk_run(&chars, i, &mut out),
            _ => i += 1,
        }
    }
    out
}

/// Reads the word starting at `chars[start]` into `out`; returns where it ends.
fn word(text: &str, chars: &[(usize, char)], start: usize, out: &mut Vec<String>) -> usize {
    let is_word = |j: usize| chars.get(j).is_some_and(|&(_, c)| class(c) == Class::Word);
    let mut end = start;
    while end < chars.len() {
        match class(chars[end].1) {
            Class::Word => end += 1,
            Class::Apostrophe if is_word(end + 1) && end > start => end += 1,
            _ => break,
        }
    }
    let byte_end = chars.get(end).map_or(text.len(), |&(b, _)| b);
    let mut term = String::with_capacity(byte_end - chars[start].0);
    for c in text[chars[start].0..byte_end].chars() {
        match c {
            '\u{2019}' => term.push('\''),
            _ => term.extend(c.to_lowercase()),
        }
    }
    if let Some(stem) = term.strip_suffix("'s").filter(|s| !s.is_empty()) {
        term.truncate(stem.len());
    }
    push_term(out, term);
    end
}

/// Reads the CJK run starting at `chars[start]` into `out` as bigrams (a
/// run of one character is one term); returns where it ends.
fn cjk_run(chars: &[(usize, char)], start: usize, out: &mut Vec<String>) -> usize {
    let mut end = start;
    while end < chars.len() && class(chars[end].1) == Class::Cjk {
        end += 1;
    }
    if end - start == 1 {
        out.push(chars[start].1.to_string());
    }
    for pair in chars[start..end].windows(2) {
        out.push([pair[0].1, pair[1].1].iter().collect());
    }
    end
}

/// Keeps `term`, cut to [`MAX_TERM_BYTES`] at a char boundary.
fn push_term(out: &mut Vec<String>, mut term: String) {
    if term.len() > MAX_TERM_BYTES {
        let cut = (0..=MAX_TERM_BYTES)
            .rev()
            .find(|&b| term.is_char_boundary(b))
            .unwrap_or(0);
        term.truncate(cut);
    }
    if !term.is_empty() {
        out.push(term);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Vec<String> {
        terms(text)
    }

    #[test]
    fn words_are_lower_cased_and_split_on_anything_else() {
        assert_eq!(
            t("The Man who was THURSDAY; 1908!"),
            ["the", "man", "who", "was", "thursday", "1908"]
        );
        assert_eq!(t("  \u{a0}—…  "), Vec::<String>::new());
        assert_eq!(t("a-b_c"), ["a", "b", "c"]);
    }

    #[test]
    fn accents_stay_in_their_word_composed_or_not() {
        assert_eq!(t("CAFÉ Naïve"), ["café", "naïve"]);
        assert_eq!(t("Cafe\u{301} noir"), ["cafe\u{301}", "noir"]);
        assert_eq!(t("ΣΟΦΙΑ Straße"), ["σοφια", "straße"]);
    }

    #[test]
    fn apostrophes_inside_words_and_possessives() {
        assert_eq!(
            t("don't O’Brien's 'quoted' Syme's"),
            ["don't", "o'brien", "quoted", "syme"]
        );
        assert_eq!(t("rock 'n' roll's end'"), ["rock", "n", "roll", "end"]);
        assert_eq!(t("'s"), ["s"]);
    }

    #[test]
    fn cjk_runs_become_overlapping_bigrams() {
        assert_eq!(t("東京都"), ["東京", "京都"]);
        assert_eq!(t("日"), ["日"]);
        assert_eq!(
            t("ひらがなカタカナ"),
            ["ひら", "らが", "がな", "なカ", "カタ", "タカ", "カナ"]
        );
        assert_eq!(t("한국어"), ["한국", "국어"]);
        assert_eq!(t("東京、大阪"), ["東京", "大阪"]);
    }

    #[test]
    fn mixed_scripts_split_where_the_script_changes() {
        assert_eq!(
            t("Tokyo東京tower 2024年"),
            ["tokyo", "東京", "tower", "2024", "年"]
        );
        assert_eq!(t("emoji🎉party москва"), ["emoji", "party", "москва"]);
    }

    #[test]
    fn long_terms_are_cut_at_a_char_boundary() {
        let long = "é".repeat(100);
        let got = t(&long);
        assert_eq!(got.len(), 1);
        assert!(got[0].len() <= MAX_TERM_BYTES && got[0].chars().all(|c| c == 'é'));
    }
}
