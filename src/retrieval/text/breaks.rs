//! Where text may be cut into pages or pieces: after whitespace, and around
//! the characters of scripts written without spaces (Chinese, Japanese), but
//! never before closing punctuation or a combining mark, nor after an
//! opening bracket. A small subset of UAX #14 line breaking; offsets it
//! returns are always char boundaries.

/// Characters of CJK scripts, where a line may break between any two.
pub fn is_wide(c: char) -> bool {
    matches!(c,
        '\u{2E80}'..='\u{2FDF}'     // CJK radicals, Kangxi radicals
        | '\u{3000}'..='\u{30FF}'   // CJK symbols and punctuation, hiragana, katakana
        | '\u{3100}'..='\u{31FF}'   // bopomofo, katakana extensions
        | '\u{3400}'..='\u{4DBF}'   // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'   // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}'   // CJK compatibility ideographs
        | '\u{FF00}'..='\u{FFEF}'   // halfwidth and fullwidth forms
        | '\u{20000}'..='\u{3FFFF}' // CJK extensions B and later
    )
}

/// Characters that stay with what precedes them: whitespace (cut after it,
/// not before), closing punctuation, and the marks that extend a character.
fn no_break_before(c: char) -> bool {
    c.is_whitespace()
        || extends(c)
        || matches!(
            c,
            '.' | ','
                | ';'
                | ':'
                | '!'
                | '?'
                | ')'
                | ']'
                | '}'
                | '\''
                | '"'
                | '’'
                | '”'
                | '»'
                | '›'
                | '、'
                | '。'
                | '，'
                | '．'
                | '：'
                | '；'
                | '！'
                | '？'
                | '）'
                | '］'
                | '｝'
                | '」'
                | '』'
                | '】'
                | '〕'
                | '〉'
                | '》'
                | '〗'
                | '〙'
                | '〛'
                | '〞'
                | '〟'
                | 'ー'
                | '・'
                | '々'
                | 'ゝ'
                | 'ゞ'
                | 'ヽ'
                | 'ヾ'
                | '｡'
                | '｣'
                | '､'
                | '･'
                | 'ｰ'
                | '…'
                | '‥'
        )
}

/// Characters that extend the one before them into one visible character:
/// combining marks, joiners, variation selectors, emoji modifiers and tags.
fn extends(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'   // combining diacritical marks
        | '\u{0483}'..='\u{0489}'   // Cyrillic combining marks
        | '\u{0591}'..='\u{05C7}'   // Hebrew points
        | '\u{0610}'..='\u{061A}'   // Arabic marks
        | '\u{064B}'..='\u{065F}'   // Arabic harakat
        | '\u{0670}'
        | '\u{06D6}'..='\u{06ED}'   // Arabic Quranic marks
        | '\u{0900}'..='\u{0903}' | '\u{093A}'..='\u{094F}' // Devanagari signs
        | '\u{0E31}' | '\u{0E34}'..='\u{0E3A}' | '\u{0E47}'..='\u{0E4E}' // Thai vowels and tones
        | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
        | '\u{200C}' | '\u{200D}'   // zero-width (non-)joiner
        | '\u{20D0}'..='\u{20FF}'
        | '\u{3099}' | '\u{309A}'   // combining kana voicing marks
        | '\u{FE00}'..='\u{FE0F}'   // variation selectors
        | '\u{FE20}'..='\u{FE2F}'
        | '\u{1F3FB}'..='\u{1F3FF}' // emoji skin tones
        | '\u{E0020}'..='\u{E007F}' // emoji tag sequences
        | '\u{E0100}'..='\u{E01EF}'
    )
}

/// Opening brackets and quotes: stay with what follows them.
fn no_break_after(c: char) -> bool {
    matches!(
        c,
        '(' | '['
            | '{'
            | '“'
            | '‘'
            | '«'
            | '‹'
            | '（'
            | '［'
            | '｛'
            | '「'
            | '『'
            | '【'
            | '〔'
            | '〈'
            | '《'
            | '〖'
            | '〘'
            | '〚'
            | '〝'
            | '｢'
            | '\u{200D}'
    )
}

/// Whether text may be cut between `prev` and `next`.
pub fn break_between(prev: char, next: char) -> bool {
    if no_break_before(next) || no_break_after(prev) {
        return false;
    }
    prev.is_whitespace() || is_wide(prev) || is_wide(next)
}

/// The last offset in `1..=limit` where `text` may be cut (`limit` a char
/// boundary before the end of `text`).
pub fn last_break(text: &str, limit: usize) -> Option<usize> {
    let mut next = text.get(limit..)?.chars().next()?;
    for (i, prev) in text[..limit].char_indices().rev() {
        if break_between(prev, next) {
            return Some(i + prev.len_utf8());
        }
        next = prev;
    }
    None
}

/// The first offset after `from` (a char boundary) where `text` may be cut.
pub fn next_break(text: &str, from: usize) -> Option<usize> {
    let mut prev = text.get(..from)?.chars().next_back()?;
    for (i, next) in text[from..].char_indices() {
        if i > 0 && break_between(prev, next) {
            return Some(from + i);
        }
        prev = next;
    }
    None
}

/// Where to cut `text` at or before `limit` (a char boundary) when it has no
/// break opportunity: the last char boundary in `1..=limit` that does not
/// part a character from the marks that extend it (nor follow a joiner);
/// `limit` itself if every one would (a cluster longer than the whole piece).
pub fn cluster_cut(text: &str, limit: usize) -> usize {
    let whole = |at: usize| match (text[..at].chars().next_back(), text[at..].chars().next()) {
        (Some(prev), Some(next)) => prev != '\u{200D}' && !extends(next),
        _ => true,
    };
    text[..limit]
        .char_indices()
        .rev()
        .map(|(i, c)| i + c.len_utf8())
        .find(|&at| whole(at))
        .unwrap_or(limit)
}

/// The offset just past the first `n` characters of `text` (its length if shorter).
pub fn char_offset(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cuts(text: &str) -> Vec<usize> {
        (1..text.len())
            .filter(|&i| text.is_char_boundary(i))
            .filter(|&i| {
                let prev = text[..i].chars().next_back().unwrap();
                break_between(prev, text[i..].chars().next().unwrap())
            })
            .map(|i| text[..i].chars().count())
            .collect()
    }

    #[test]
    fn breaks_after_spaces_and_between_ideographs() {
        assert_eq!(cuts("two  words"), [5]);
        assert_eq!(cuts("no\u{a0}break"), [3]);
        assert_eq!(cuts("猫です。「はい」"), [1, 2, 4, 6]);
        assert_eq!(cuts("\u{3000}吾輩"), [1, 2]);
        assert_eq!(cuts("e\u{301} x"), [3]);
        assert_eq!(cuts("👩\u{200D}👩 🎉"), [4]);
        assert_eq!(cuts("مرحبا\u{64B} بك"), [7]);
    }

    #[test]
    fn last_and_next_break() {
        let text = "ab cd efgh ij";
        assert_eq!(last_break(text, 8), Some(6));
        assert_eq!(last_break(text, 2), None);
        assert_eq!(next_break(text, 7), Some(11));
        assert_eq!(next_break(text, 11), None);
        let cjk = "吾輩は猫";
        assert_eq!(last_break(cjk, 6), Some(6));
        assert_eq!(next_break(cjk, 3), Some(6));
        assert_eq!(char_offset(cjk, 2), 6);
        assert_eq!(char_offset(cjk, 9), cjk.len());
    }

    #[test]
    fn cluster_cuts_keep_marks_with_their_letter() {
        let text = "ae\u{301}\u{302}b";
        assert_eq!(cluster_cut(text, 2), 1); // before the e, not between e and its accents
        assert_eq!(cluster_cut(text, 4), 1);
        assert_eq!(cluster_cut(text, 6), 6);
        let family = "👩\u{200D}👩x";
        assert_eq!(cluster_cut(family, 11), 11);
        assert_eq!(cluster_cut("x👩\u{200D}👩", 8), 1);
        // A cluster longer than the piece: cut at the limit.
        assert_eq!(cluster_cut(family, 7), 7);
        assert_eq!(cluster_cut("\u{301}\u{301}", 2), 2);
    }
}
