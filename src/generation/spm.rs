//! SentencePiece-style vocabularies (`tokenizer.ggml.model = llama`: Gemma 3,
//! Llama 2), as llama.cpp's `llm_tokenizer_spm` encodes text between special
//! tokens: every space written `▁` (and one put first when
//! `tokenizer.ggml.add_space_prefix` and the text starts the prompt or follows
//! a special token), the text split into characters, then, again and again,
//! the adjacent pair whose joined text is the token of highest
//! `tokenizer.ggml.scores` joined (ties to the left); a piece left with no
//! token becomes its bytes' `<0xXX>` tokens.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::gguf::Gguf;
use super::gguf_meta::MetaValue;
use super::vocab::Vocab;

/// The escaped space.
const SPACE: char = '\u{2581}';

/// A SentencePiece vocabulary's scores and byte tokens.
pub(super) struct Spm {
    /// Each token's score (NaN read as -inf, -0 as 0, so they order as llama.cpp's `<`).
    scores: Vec<f32>,
    /// The token of each byte: `<0xXX>`, else the byte itself as a one-character token.
    byte_tokens: [Option<u32>; 256],
    add_space_prefix: bool,
}

impl Spm {
    /// `tokenizer.ggml.scores` and `tokenizer.ggml.add_space_prefix` (true
    /// when absent, as in llama.cpp) of `file`, and `vocab`'s byte tokens.
    pub(super) fn read(file: &Gguf, vocab: &Vocab) -> Self {
        let scores = file
            .meta("tokenizer.ggml.scores")
            .and_then(MetaValue::as_array)
            .unwrap_or(&[])
            .iter()
            .map(|s| match s.as_f64() {
                Some(v) if !v.is_nan() => v as f32 + 0.0,
                _ => f32::NEG_INFINITY,
            })
            .collect();
        let mut byte_tokens = [None; 256];
        for (b, slot) in byte_tokens.iter_mut().enumerate() {
            let lone = (b < 0x80).then(|| char::from(b as u8).to_string());
            *slot = vocab
                .id(&format!("<0x{b:02X}>"))
                .or_else(|| lone.and_then(|c| vocab.id(&c)));
        }
        Spm {
            scores,
            byte_tokens,
            add_space_prefix: file
                .meta("tokenizer.ggml.add_space_prefix")
                .and_then(MetaValue::as_bool)
                .unwrap_or(true),
        }
    }

    /// Whether a space is put before text that starts the prompt or follows a special token.
    pub(super) fn add_space_prefix(&self) -> bool {
        self.add_space_prefix
    }

    /// The ids of `text` (no special tokens in it), pushed onto `out`;
    /// `after_special` when it starts the prompt or follows a special token.
    /// A byte with no token (llama.cpp fails there) is left out.
    pub(super) fn encode(&self, vocab: &Vocab, text: &str, after_special: bool, out: &mut Vec<u32>) {
        let mut escaped = String::with_capacity(text.len() + 3);
        if self.add_space_prefix && after_special {
            escaped.push(SPACE);
        }
        escaped.extend(text.chars().map(|c| if c == ' ' { SPACE } else { c }));
        let mut merge = Merge::new(&escaped);
        for right in 1..merge.symbols.len() {
            self.offer(vocab, &mut merge, right - 1, right);
        }
        while let Some(pair) = merge.queue.pop() {
            let Some(joined) = merge.join(&pair) else {
                continue;
            };
            if let Some(prev) = merge.symbols[joined].prev {
                self.offer(vocab, &mut merge, prev, joined);
            }
            if let Some(next) = merge.symbols[joined].next {
                self.offer(vocab, &mut merge, joined, next);
            }
        }
        let mut at = (!merge.symbols.is_empty()).then_some(0);
        while let Some(i) = at {
            let piece = merge.text(i);
            match vocab.id(piece) {
                Some(id) => out.push(id),
                None => out.extend(piece.bytes().filter_map(|b| self.byte_tokens[b as usize])),
            }
            at = merge.symbols[i].next;
        }
    }

    /// Queues the pair of symbols `left` and `right` if their joined text is a token.
    fn offer(&self, vocab: &Vocab, merge: &mut Merge, left: usize, right: usize) {
        let (start, end) = (merge.symbols[left].start, merge.symbols[right].end());
        if let Some(id) = vocab.id(&merge.text[start..end]) {
            merge.queue.push(Pair {
                score: self.scores.get(id as usize).copied().unwrap_or(0.0),
                left,
                right,
                len: end - start,
            });
        }
    }
}

/// The bytes a normal token's `text` stands for: `▁` as a space.
pub(super) fn piece_bytes(text: &str) -> Vec<u8> {
    text.replace(SPACE, " ").into_bytes()
}

/// The byte a byte token (`<0x0A>`) stands for.
pub(super) fn byte_of(text: &str) -> Option<u8> {
    u8::from_str_radix(text.get(3..5)?, 16).ok()
}

/// One character or merged run of the text, in a list linked both ways.
#[derive(Clone, Copy)]
struct Symbol {
    start: usize,
    /// Bytes; 0 once merged into the symbol on its left.
    len: usize,
    prev: Option<usize>,
    next: Option<usize>,
}

impl Symbol {
    fn end(&self) -> usize {
        self.start + self.len
    }
}

/// Two neighbouring symbols whose joined text is a token of `score`.
struct Pair {
    score: f32,
    left: usize,
    right: usize,
    /// The joined text's length when queued: a pair changed since is stale.
    len: usize,
}

impl Ord for Pair {
    /// The higher score first, then the pair further left.
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then(other.left.cmp(&self.left))
    }
}

impl PartialOrd for Pair {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Pair {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Pair {}

/// The symbols of one text and the queue of pairs that may join.
struct Merge<'t> {
    text: &'t str,
    symbols: Vec<Symbol>,
    queue: BinaryHeap<Pair>,
}

impl<'t> Merge<'t> {
    /// `text` as one symbol a character.
    fn new(text: &'t str) -> Self {
        let count = text.chars().count();
        let symbols = text
            .char_indices()
            .enumerate()
            .map(|(i, (start, c))| Symbol {
                start,
                len: c.len_utf8(),
                prev: i.checked_sub(1),
                next: (i + 1 < count).then_some(i + 1),
            })
            .collect();
        Merge {
            text,
            symbols,
            queue: BinaryHeap::new(),
        }
    }

    /// Symbol `i`'s text.
    fn text(&self, i: usize) -> &'t str {
        &self.text[self.symbols[i].start..self.symbols[i].end()]
    }

    /// Joins `pair`'s right symbol into its left one, unless either changed
    /// since it was queued; the joined symbol's index.
    fn join(&mut self, pair: &Pair) -> Option<usize> {
        let (left, right) = (self.symbols[pair.left], self.symbols[pair.right]);
        if left.len == 0 || right.len == 0 || left.len + right.len != pair.len {
            return None;
        }
        self.symbols[pair.left].len += right.len;
        self.symbols[pair.left].next = right.next;
        self.symbols[pair.right].len = 0;
        if let Some(next) = right.next {
            self.symbols[next].prev = Some(pair.left);
        }
        Some(pair.left)
    }
}

#[cfg(test)]
mod tests {
    use super::Spm;
    use crate::generation::gguf::Gguf;
    use crate::generation::test_gguf;
    use crate::generation::vocab::Vocab;

    const NORMAL: i32 = 1;
    const BYTE: i32 = 6;

    /// `tokens` as a vocabulary: each `(text, score)` normal, then the byte tokens of 0x21, 0xC3 and 0xA9.
    fn encoder(tokens: &[(&str, f32)], add_space_prefix: bool) -> impl Fn(&str, bool) -> Vec<String> {
        let mut all: Vec<(&str, f32, i32)> = tokens.iter().map(|&(t, s)| (t, s, NORMAL)).collect();
        all.extend([
            ("<0x21>", 0.0, BYTE),
            ("<0xC3>", 0.0, BYTE),
            ("<0xA9>", 0.0, BYTE),
        ]);
        let bytes = test_gguf::spm(&all, add_space_prefix);
        let file = Gguf::parse(&bytes).unwrap();
        let vocab = Vocab::read(&file).unwrap();
        let spm = Spm::read(&file, &vocab);
        let texts: Vec<String> = all.iter().map(|t| t.0.to_owned()).collect();
        move |text, after_special| {
            let mut out = Vec::new();
            spm.encode(&vocab, text, after_special, &mut out);
            out.iter().map(|&id| texts[id as usize].clone()).collect()
        }
    }

    #[test]
    fn the_pair_of_highest_score_joins_first() {
        let chars = [("a", -10.0), ("b", -10.0), ("c", -10.0)];
        let bc_higher = encoder(&[&chars[..], &[("ab", -5.0), ("bc", -1.0)]].concat(), false);
        assert_eq!(bc_higher("abc", true), ["a", "bc"]);
        let ab_higher = encoder(&[&chars[..], &[("ab", -1.0), ("bc", -5.0)]].concat(), false);
        assert_eq!(ab_higher("abc", true), ["ab", "c"]);
        // Equal scores: the pair further left; a join offers new pairs ("aa" + "aa").
        let tie = encoder(&[("a", -10.0), ("aa", -2.0), ("aaaa", -1.0)], false);
        assert_eq!(tie("aaa", true), ["aa", "a"]);
        assert_eq!(tie("aaaaa", true), ["aaaa", "a"]);
    }

    #[test]
    fn spaces_are_escaped_and_prefixed_as_asked() {
        let tokens = [("a", -9.0), ("b", -9.0), ("▁", -9.0), ("ab", -5.0), ("▁ab", -1.0)];
        let plain = encoder(&tokens, false);
        assert_eq!(plain("ab ab  b", true), ["ab", "▁ab", "▁", "▁", "b"]);
        assert_eq!(plain(" ab", false), ["▁ab"]);
        let prefixed = encoder(&tokens, true);
        assert_eq!(prefixed("ab", true), ["▁ab"], "a space before a prompt's text");
        assert_eq!(prefixed("ab", false), ["ab"], "none inside it");
    }

    #[test]
    fn characters_without_a_token_fall_back_to_bytes() {
        let encode = encoder(&[("a", -1.0), ("é", -1.0)], false);
        assert_eq!(encode("é", true), ["é"]);
        let encode = encoder(&[("a", -1.0)], false);
        assert_eq!(encode("aé!a", true), ["a", "<0xC3>", "<0xA9>", "<0x21>", "a"]);
        assert_eq!(
            encode("z", true),
            Vec::<String>::new(),
            "no token for 0x7A: left out"
        );
    }
}
