//! GPT-2-style byte-level BPE (`tokenizer.ggml.model = gpt2`: SmolLM2,
//! Llama 3): text between special tokens split into words, each word's bytes
//! (as GPT-2's printable stand-ins) merged by rank, lowest first, as llama.cpp
//! encodes them; and a token's text back to bytes.

use std::collections::HashMap;

use super::gguf::Gguf;
use super::gguf_meta::MetaValue;
use super::pretokenize::words;
use super::vocab::Vocab;

/// The merges and byte alphabet of a byte-level BPE vocabulary.
pub(super) struct Bpe {
    ranks: HashMap<(String, String), usize>,
    byte_chars: [char; 256],
    char_bytes: HashMap<char, u8>,
    digits_alone: bool,
}

impl Bpe {
    /// `tokenizer.ggml.merges` and `tokenizer.ggml.pre` of `file`.
    pub(super) fn read(file: &Gguf) -> Self {
        let merges = file
            .meta("tokenizer.ggml.merges")
            .and_then(MetaValue::as_array)
            .unwrap_or(&[]);
        let ranks = merges
            .iter()
            .enumerate()
            .filter_map(|(rank, merge)| {
                let (a, b) = merge.as_str()?.split_once(' ')?;
                Some(((a.to_owned(), b.to_owned()), rank))
            })
            .collect();
        let byte_chars = byte_chars();
        let pre = file.text("tokenizer.ggml.pre").unwrap_or("default");
        Bpe {
            ranks,
            char_bytes: byte_chars
                .iter()
                .enumerate()
                .map(|(b, c)| (*c, b as u8))
                .collect(),
            byte_chars,
            digits_alone: !matches!(pre, "gpt-2" | "default"),
        }
    }

    /// The ids of `text` (no special tokens in it), pushed onto `out`.
    pub(super) fn encode(&self, vocab: &Vocab, text: &str, out: &mut Vec<u32>) {
        for word in words(text, self.digits_alone) {
            self.encode_word(vocab, word, out);
        }
    }

    /// One word's bytes as symbols, merged by rank (lowest first), as ids.
    fn encode_word(&self, vocab: &Vocab, word: &str, out: &mut Vec<u32>) {
        let mut symbols: Vec<String> = word
            .bytes()
            .map(|b| self.byte_chars[b as usize].to_string())
            .collect();
        loop {
            let best = symbols
                .windows(2)
                .enumerate()
                .filter_map(|(i, pair)| {
                    let rank = self.ranks.get(&(pair[0].clone(), pair[1].clone()))?;
                    Some((*rank, i))
                })
                .min();
            let Some((_, i)) = best else { break };
            let right = symbols.remove(i + 1);
            symbols[i].push_str(&right);
        }
        for symbol in symbols {
            match vocab.id(&symbol) {
                Some(id) => out.push(id),
                // Not in the vocabulary: its characters one by one (each byte has a token).
                None => out.extend(
                    symbol
                        .chars()
                        .filter_map(|c| vocab.id(c.encode_utf8(&mut [0; 4]))),
                ),
            }
        }
    }

    /// The bytes a normal token's `text` stands for: each character's byte,
    /// or the text itself when a character stands for none.
    pub(super) fn piece_bytes(&self, text: &str) -> Vec<u8> {
        match text.chars().all(|c| self.char_bytes.contains_key(&c)) {
            true => text.chars().map(|c| self.char_bytes[&c]).collect(),
            false => text.as_bytes().to_vec(),
        }
    }
}

/// GPT-2's printable stand-in for every byte: the printable Latin-1 bytes
/// stand for themselves, the others for U+0100 onwards in order.
fn byte_chars() -> [char; 256] {
    let mut chars = ['\0'; 256];
    let mut next = 256u32;
    for (b, slot) in chars.iter_mut().enumerate() {
        let printable = matches!(b, 33..=126 | 161..=172 | 174..=255);
        *slot = match printable {
            true => char::from(b as u8),
            false => {
                next += 1;
                char::from_u32(next - 1).expect("below the surrogates")
            }
        };
    }
    chars
}
