//! all-MiniLM-L6-v2's tokenizer (BERT uncased WordPiece), id for id as
//! sentence-transformers feeds the model: special tokens matched in the raw
//! text; each other character normalised on its own (controls dropped,
//! whitespace to a space, CJK ideographs spaced, accents stripped, lower
//! case: [`super::tables`], derived from the reference); words split at
//! spaces and punctuation; each word cut greedily into the longest
//! vocabulary pieces (`##` inside a word), or `[UNK]` whole; at most
//! [`MAX_TOKENS`] ids with `[CLS]` and `[SEP]`.

use std::collections::HashMap;

use super::tables::{CJK, MAP_KEYS, MAP_OFFSETS, MAP_STR, PUNCT, REMOVED, SPACE};
use crate::error::{Error, Result};

/// Ids per text, `[CLS]` and `[SEP]` included (the model's `max_seq_length`).
pub const MAX_TOKENS: usize = 256;

/// Words longer than this (in characters) become one `[UNK]`.
const MAX_WORD_CHARS: usize = 100;

/// The special tokens, matched case-sensitively anywhere in the raw text.
const SPECIALS: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

/// A WordPiece vocabulary and the ids of its special tokens.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    vocab: HashMap<String, u32>,
    /// The longest piece, in characters (the longest match tried).
    longest: usize,
    unk: u32,
    cls: u32,
    sep: u32,
}

impl Tokenizer {
    /// The tokenizer of a `vocab.txt`: one piece per line, its id the line's
    /// number from 0. A `Config` error if a special token is missing.
    pub fn from_vocab(text: &str) -> Result<Self> {
        let vocab: HashMap<String, u32> = text
            .lines()
            .enumerate()
            .map(|(id, piece)| (piece.to_owned(), id as u32))
            .collect();
        let id = |piece: &str| {
            vocab
                .get(piece)
                .copied()
                .ok_or_else(|| Error::config(format!("the vocabulary has no {piece} token")))
        };
        for special in SPECIALS {
            id(special)?;
        }
        let longest = vocab.keys().map(|p| p.chars().count()).max().unwrap_or(0);
        Ok(Tokenizer {
            unk: id("[UNK]")?,
            cls: id("[CLS]")?,
            sep: id("[SEP]")?,
            vocab,
            longest,
        })
    }

    /// The ids of `text`: `[CLS]`, the first `MAX_TOKENS - 2` pieces, `[SEP]`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut ids = vec![self.cls];
        for (plain, special) in split_specials(text) {
            for word in pre_tokenize(plain) {
                self.word_pieces(&word, &mut ids);
            }
            if let Some(special) = special {
                ids.push(self.vocab[special]);
            }
        }
        ids.truncate(MAX_TOKENS - 1);
        ids.push(self.sep);
        ids
    }

    /// Appends the pieces of one word: longest vocabulary match first,
    /// `##`-prefixed after the first; `[UNK]` for the whole word when some
    /// part matches nothing or it is too long.
    fn word_pieces(&self, word: &str, ids: &mut Vec<u32>) {
        let bounds: Vec<usize> = word.char_indices().map(|(i, _)| i).chain([word.len()]).collect();
        let chars = bounds.len() - 1;
        if chars > MAX_WORD_CHARS {
            ids.push(self.unk);
            return;
        }
        let mut pieces = Vec::new();
        let mut key = String::new();
        let mut start = 0;
        while start < chars {
            let found = (start + 1..=chars.min(start + self.longest))
                .rev()
                .find_map(|end| {
                    key.clear();
                    if start > 0 {
                        key.push_str("##");
                    }
                    key.push_str(&word[bounds[start]..bounds[end]]);
                    self.vocab.get(&key).map(|&id| (id, end))
                });
            let Some((id, end)) = found else {
                ids.push(self.unk);
                return;
            };
            pieces.push(id);
            start = end;
        }
        ids.extend(pieces);
    }
}

/// `text` cut at the special tokens: each plain stretch with the special
/// token after it (none after the last).
fn split_specials(text: &str) -> Vec<(&str, Option<&'static str>)> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some((at, special)) = SPECIALS
        .iter()
        .filter_map(|s| rest.find(s).map(|at| (at, *s)))
        .min_by_key(|(at, _)| *at)
    {
        parts.push((&rest[..at], Some(special)));
        rest = &rest[at + special.len()..];
    }
    parts.push((rest, None));
    parts
}

/// The words of `text` as the reference normaliser and pre-tokenizer make
/// them (special tokens are not looked for here).
pub fn pre_tokenize(text: &str) -> Vec<String> {
    let mut normalized = String::with_capacity(text.len());
    for c in text.chars() {
        normalize_char(c, &mut normalized);
    }
    let mut words = Vec::new();
    for word in normalized.split(' ') {
        let mut current = String::new();
        for c in word.chars() {
            if in_ranges(PUNCT, c) {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
                words.push(c.to_string());
            } else {
                current.push(c);
            }
        }
        if !current.is_empty() {
            words.push(current);
        }
    }
    words
}

/// Appends what `c` normalises to.
fn normalize_char(c: char, out: &mut String) {
    if c.is_ascii_alphanumeric() || c == ' ' {
        out.push(c.to_ascii_lowercase());
    } else if in_ranges(REMOVED, c) {
    } else if in_ranges(SPACE, c) {
        out.push(' ');
    } else if let Some(jamo) = hangul_jamo(c) {
        out.extend(jamo.into_iter().flatten());
    } else if let Some(mapped) = mapped(c) {
        out.push_str(mapped);
    } else if in_ranges(CJK, c) {
        out.push(' ');
        out.push(c);
        out.push(' ');
    } else {
        out.push(c);
    }
}

/// A Hangul syllable's conjoining jamo (its canonical decomposition).
fn hangul_jamo(c: char) -> Option<[Option<char>; 3]> {
    let s = (c as u32).checked_sub(0xAC00).filter(|s| *s < 11_172)?;
    let trailing = (s % 28 != 0).then(|| char::from_u32(0x11A7 + s % 28)).flatten();
    Some([
        char::from_u32(0x1100 + s / 588),
        char::from_u32(0x1161 + (s % 588) / 28),
        trailing,
    ])
}

/// The table's normalisation of `c`, if it has one.
fn mapped(c: char) -> Option<&'static str> {
    let i = MAP_KEYS.binary_search(&(c as u32)).ok()?;
    let (start, end) = (MAP_OFFSETS[i] as usize, MAP_OFFSETS[i + 1] as usize);
    MAP_STR.get(start..end)
}

/// Whether `c` is in one of the inclusive, ascending `ranges`.
fn in_ranges(ranges: &[(u32, u32)], c: char) -> bool {
    let cp = c as u32;
    let after = ranges.partition_point(|(start, _)| *start <= cp);
    after > 0 && cp <= ranges[after - 1].1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Tokenizer {
        let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nun\n##aff\n##able\nhello\n,\nworld\n##s";
        Tokenizer::from_vocab(vocab).unwrap()
    }

    #[test]
    fn words_are_cut_into_the_longest_pieces_or_unk_whole() {
        let t = tiny();
        assert_eq!(t.encode("Unaffable, HELLO worlds"), [2, 5, 6, 7, 9, 8, 10, 11, 3]);
        assert_eq!(
            t.encode("unaffablex hello"),
            [2, 1, 8, 3],
            "no piece for x: the whole word"
        );
        assert_eq!(t.encode("hello[MASK]hello"), [2, 8, 4, 8, 3]);
    }

    #[test]
    fn every_map_entry_is_a_whole_string() {
        assert_eq!(MAP_OFFSETS.len(), MAP_KEYS.len() + 1);
        for i in 0..MAP_KEYS.len() {
            assert!(MAP_STR
                .get(MAP_OFFSETS[i] as usize..MAP_OFFSETS[i + 1] as usize)
                .is_some());
        }
    }

    #[test]
    fn the_ids_are_capped_with_cls_and_sep() {
        let t = tiny();
        let ids = t.encode(&"hello ".repeat(400));
        assert_eq!(ids.len(), MAX_TOKENS);
        assert_eq!((ids[0], ids[MAX_TOKENS - 1]), (2, 3));
    }

    #[test]
    fn a_vocabulary_without_its_special_tokens_is_refused() {
        let error = Tokenizer::from_vocab("[PAD]\n[UNK]\nhello").unwrap_err();
        assert!(error.to_string().contains("[CLS]"), "{error}");
    }
}
