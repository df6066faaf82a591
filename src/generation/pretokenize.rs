//! The split of text into words before byte-level BPE, as llama.cpp does it
//! for GPT-2-style vocabularies: every number character alone first (the
//! `smollm`, `qwen2` and `llama3`-family pre-tokenizers' `\p{N}`), then GPT-2's
//! pattern `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
//! on each piece. Letters are Rust's `is_alphabetic` (Unicode Alphabetic,
//! a little wider than `\p{L}`: combining vowel signs count as letters).

/// The words of `text`, in order; together they are `text`.
pub fn words(text: &str, digits_alone: bool) -> Vec<&str> {
    let mut out = Vec::new();
    for piece in pieces(text, digits_alone) {
        gpt2_words(piece, &mut out);
    }
    out
}

/// `text` cut before and after every number character, when `digits_alone`.
fn pieces(text: &str, digits_alone: bool) -> Vec<&str> {
    if !digits_alone {
        return vec![text];
    }
    let mut out = Vec::new();
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if c.is_numeric() {
            if start < at {
                out.push(&text[start..at]);
            }
            let end = at + c.len_utf8();
            out.push(&text[at..end]);
            start = end;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Class {
    Letter,
    Number,
    Space,
    Other,
}

fn class(c: char) -> Class {
    if c.is_whitespace() {
        Class::Space
    } else if c.is_numeric() {
        Class::Number
    } else if c.is_alphabetic() {
        Class::Letter
    } else {
        Class::Other
    }
}

/// GPT-2's pattern over `text`, its matches pushed onto `out`.
fn gpt2_words<'a>(text: &'a str, out: &mut Vec<&'a str>) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let at = |i: usize| chars.get(i).map_or(text.len(), |(b, _)| *b);
    let class_at = |i: usize| chars.get(i).map(|(_, c)| class(*c));
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].1;
        let end = if let Some(len) = contraction(&chars[i..]) {
            i + len
        } else {
            // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional space, then a run of one class.
            let first = if c == ' ' && matches!(class_at(i + 1), Some(k) if k != Class::Space) {
                i + 1
            } else {
                i
            };
            match class_at(first) {
                Some(kind) if kind != Class::Space => {
                    let mut j = first + 1;
                    while class_at(j) == Some(kind) {
                        j += 1;
                    }
                    j
                }
                _ => {
                    // `\s+(?!\S)|\s+`: whitespace, less its last character when a word follows.
                    let mut j = i + 1;
                    while class_at(j) == Some(Class::Space) {
                        j += 1;
                    }
                    if j < chars.len() && j - i > 1 {
                        j - 1
                    } else {
                        j
                    }
                }
            }
        };
        out.push(&text[at(i)..at(end)]);
        i = end;
    }
}

/// The length of a contraction (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d`) at the start of `chars`.
fn contraction(chars: &[(usize, char)]) -> Option<usize> {
    if chars.first()?.1 != '\'' {
        return None;
    }
    let next = |k: usize| chars.get(k).map(|(_, c)| *c);
    match (next(1)?, next(2)) {
        ('s' | 't' | 'm' | 'd', _) => Some(2),
        ('r', Some('e')) | ('v', Some('e')) | ('l', Some('l')) => Some(3),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn it_splits_as_gpt2_with_digits_alone() {
        assert_eq!(
            words("Hello world, it's 2024!  Go\n\nnow  ", true),
            [
                "Hello", " world", ",", " it", "'s", " ", "2", "0", "2", "4", "!", " ", " Go", "\n", "\n",
                "now", "  "
            ]
        );
        assert_eq!(words("in 2024", false), ["in", " 2024"]);
        assert_eq!(words("a   b\tc", false), ["a", "  ", " b", "\t", "c"]);
        assert_eq!(words("Ünïcödé wörds", false), ["Ünïcödé", " wörds"]);
    }
}
