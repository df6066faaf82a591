//! A GGUF's GPT-2-style byte-level BPE vocabulary (`tokenizer.ggml.model =
//! gpt2`): text to token ids as llama.cpp encodes it (special tokens matched
//! first, then words, then each word's bytes merged by rank), and ids back
//! to bytes.

use std::collections::HashMap;

use crate::error::{Error, Result};

use super::gguf::Gguf;
use super::gguf_meta::MetaValue;
use super::pretokenize::words;

/// llama.cpp's token types: control tokens (`<|im_start|>`) and user-defined ones are matched whole.
const CONTROL: i64 = 3;
const USER_DEFINED: i64 = 4;

/// A byte-level BPE vocabulary.
pub struct Tokenizer {
    tokens: Vec<String>,
    ids: HashMap<String, u32>,
    ranks: HashMap<(String, String), usize>,
    /// Tokens matched whole in text, longest first.
    specials: Vec<(String, u32)>,
    /// Whether each token is a control token (printed as nothing).
    control: Vec<bool>,
    byte_chars: [char; 256],
    char_bytes: HashMap<char, u8>,
    digits_alone: bool,
    /// The beginning-of-sequence token, when the model wants one first.
    pub bos: Option<u32>,
    /// The end-of-sequence token.
    pub eos: Option<u32>,
    /// The end-of-turn token, when the model has one (`<|im_end|>`).
    pub eot: Option<u32>,
}

impl Tokenizer {
    /// The vocabulary in `file`'s metadata; a `Config` error for another kind.
    pub fn read(file: &Gguf) -> Result<Self> {
        let model = file.text("tokenizer.ggml.model").unwrap_or("");
        if model != "gpt2" {
            return Err(Error::config(format!(
                "the model's tokenizer is '{model}'; Lectern reads byte-level BPE ('gpt2') vocabularies"
            )));
        }
        let list = |key: &str| file.meta(key).and_then(MetaValue::as_array).unwrap_or(&[]);
        let tokens: Vec<String> = list("tokenizer.ggml.tokens")
            .iter()
            .map(|t| t.as_str().unwrap_or("").to_owned())
            .collect();
        if tokens.is_empty() {
            return Err(Error::config("the model file has no tokenizer.ggml.tokens"));
        }
        let types: Vec<i64> = list("tokenizer.ggml.token_type")
            .iter()
            .map(|t| t.as_f64().unwrap_or(1.0) as i64)
            .collect();
        let ranks = list("tokenizer.ggml.merges")
            .iter()
            .enumerate()
            .filter_map(|(rank, merge)| {
                let (a, b) = merge.as_str()?.split_once(' ')?;
                Some(((a.to_owned(), b.to_owned()), rank))
            })
            .collect();
        let kind = |i: usize| types.get(i).copied().unwrap_or(1);
        let mut specials: Vec<(String, u32)> = (0..tokens.len())
            .filter(|&i| matches!(kind(i), CONTROL | USER_DEFINED) && !tokens[i].is_empty())
            .map(|i| (tokens[i].clone(), i as u32))
            .collect();
        specials.sort_by_key(|s| std::cmp::Reverse(s.0.len()));
        let control = (0..tokens.len()).map(|i| kind(i) == CONTROL).collect();
        let id = |key: &str| file.meta(key).and_then(MetaValue::as_u64).map(|v| v as u32);
        let add_bos = file
            .meta("tokenizer.ggml.add_bos_token")
            .and_then(MetaValue::as_bool)
            .unwrap_or(false);
        let ids: HashMap<String, u32> = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as u32))
            .collect();
        let byte_chars = byte_chars();
        let pre = file.text("tokenizer.ggml.pre").unwrap_or("default");
        Ok(Tokenizer {
            eot: id("tokenizer.ggml.eot_token_id").or_else(|| ids.get("<|im_end|>").copied()),
            bos: id("tokenizer.ggml.bos_token_id").filter(|_| add_bos),
            eos: id("tokenizer.ggml.eos_token_id"),
            char_bytes: byte_chars
                .iter()
                .enumerate()
                .map(|(b, c)| (*c, b as u8))
                .collect(),
            byte_chars,
            digits_alone: !matches!(pre, "gpt-2" | "default"),
            tokens,
            ids,
            ranks,
            specials,
            control,
        })
    }

    /// Tokens in the vocabulary.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether the vocabulary is empty (never, once read).
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The id of the token spelt exactly `text`, if there is one.
    pub fn id_of(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }

    /// A prompt's token ids: the beginning-of-sequence token first when the
    /// model asks for one (`tokenizer.ggml.add_bos_token`, as llama.cpp adds
    /// it), then [`Self::encode`]'s.
    pub fn encode_prompt(&self, text: &str) -> Vec<u32> {
        let mut ids: Vec<u32> = self.bos.into_iter().collect();
        ids.extend(self.encode(text));
        ids
    }

    /// `text` as token ids; special tokens written in it (`<|im_start|>`) are
    /// matched whole. No beginning-of-sequence token is added.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let (plain, special) = self.next_special(rest);
            for word in words(plain, self.digits_alone) {
                self.encode_word(word, &mut out);
            }
            match special {
                Some((id, len)) => {
                    out.push(id);
                    rest = &rest[plain.len() + len..];
                }
                None => break,
            }
        }
        out
    }

    /// The text before the first special token in `text`, and that token's id and length.
    fn next_special<'t>(&self, text: &'t str) -> (&'t str, Option<(u32, usize)>) {
        for (at, _) in text.char_indices() {
            let tail = &text[at..];
            if let Some((token, id)) = self.specials.iter().find(|(t, _)| tail.starts_with(t.as_str())) {
                return (&text[..at], Some((*id, token.len())));
            }
        }
        (text, None)
    }

    /// One word's bytes as symbols, merged by rank (lowest first), as ids.
    fn encode_word(&self, word: &str, out: &mut Vec<u32>) {
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
            match self.ids.get(&symbol) {
                Some(id) => out.push(*id),
                // Not in the vocabulary: its characters one by one (each byte has a token).
                None => out.extend(
                    symbol
                        .chars()
                        .filter_map(|c| self.ids.get(&c.to_string()).copied()),
                ),
            }
        }
    }

    /// The bytes token `id` stands for (none for a control token or an unknown id).
    pub fn token_bytes(&self, id: u32) -> Vec<u8> {
        let index = id as usize;
        if self.control.get(index).copied().unwrap_or(true) {
            return Vec::new();
        }
        let text = &self.tokens[index];
        match text.chars().all(|c| self.char_bytes.contains_key(&c)) {
            true => text.chars().map(|c| self.char_bytes[&c]).collect(),
            // A user-defined token is spelt as itself.
            false => text.as_bytes().to_vec(),
        }
    }

    /// `ids` as text (invalid UTF-8 replaced).
    pub fn decode(&self, ids: &[u32]) -> String {
        let bytes: Vec<u8> = ids.iter().flat_map(|id| self.token_bytes(*id)).collect();
        String::from_utf8_lossy(&bytes).into_owned()
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

#[cfg(test)]
mod tests {
    use super::Tokenizer;
    use crate::generation::gguf::Gguf;

    /// A GGUF (version 3, no tensors) holding `metadata`: `(key, type id, value bytes)`.
    fn gguf(metadata: &[(&str, u32, Vec<u8>)]) -> Vec<u8> {
        let mut out = b"GGUF".to_vec();
        out.extend(3u32.to_le_bytes());
        out.extend(0u64.to_le_bytes());
        out.extend((metadata.len() as u64).to_le_bytes());
        for (key, kind, value) in metadata {
            out.extend(text(key));
            out.extend(kind.to_le_bytes());
            out.extend(value);
        }
        out
    }

    fn text(s: &str) -> Vec<u8> {
        let mut out = (s.len() as u64).to_le_bytes().to_vec();
        out.extend(s.as_bytes());
        out
    }

    /// An array value of `kind` items, each already encoded.
    fn array(kind: u32, items: Vec<Vec<u8>>) -> Vec<u8> {
        let mut out = kind.to_le_bytes().to_vec();
        out.extend((items.len() as u64).to_le_bytes());
        out.extend(items.concat());
        out
    }

    fn vocabulary(add_bos: bool) -> Vec<u8> {
        let tokens = ["a", "b", "ab", "<s>", "Ġ", "Ġab"].map(text).to_vec();
        let types = [1i32, 1, 1, 3, 1, 1].map(|t| t.to_le_bytes().to_vec()).to_vec();
        gguf(&[
            ("tokenizer.ggml.model", 8, text("gpt2")),
            ("tokenizer.ggml.tokens", 9, array(8, tokens)),
            ("tokenizer.ggml.token_type", 9, array(5, types)),
            (
                "tokenizer.ggml.merges",
                9,
                array(8, vec![text("a b"), text("Ġ ab")]),
            ),
            ("tokenizer.ggml.bos_token_id", 4, 3u32.to_le_bytes().to_vec()),
            ("tokenizer.ggml.add_bos_token", 7, vec![add_bos as u8]),
        ])
    }

    #[test]
    fn a_prompt_starts_with_the_bos_token_when_the_model_asks() {
        for (add_bos, prompt) in [(true, vec![3, 2, 5]), (false, vec![2, 5])] {
            let bytes = vocabulary(add_bos);
            let tokenizer = Tokenizer::read(&Gguf::parse(&bytes).unwrap()).unwrap();
            assert_eq!(
                tokenizer.encode("ab ab"),
                [2, 5],
                "merged by rank, the space as Ġ"
            );
            assert_eq!(tokenizer.encode_prompt("ab ab"), prompt);
            assert_eq!(
                tokenizer.encode("<s>ab"),
                [3, 2],
                "a control token written in the text"
            );
            assert_eq!(
                tokenizer.decode(&[3, 2, 5]),
                "ab ab",
                "control tokens print nothing"
            );
        }
    }

    #[test]
    fn another_vocabulary_kind_is_a_config_error() {
        let bytes = gguf(&[("tokenizer.ggml.model", 8, text("llama"))]);
        let error = Tokenizer::read(&Gguf::parse(&bytes).unwrap()).err().unwrap();
        assert_eq!(error.name(), "ConfigError");
        assert!(Gguf::parse(b"GGUF\x09\0\0\0").is_err(), "an unknown version");
        assert!(Gguf::parse(b"not a model").is_err());
    }
}
