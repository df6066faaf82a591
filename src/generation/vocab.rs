//! A GGUF's token list as llama.cpp reads it: each token's text and kind
//! (`tokenizer.ggml.token_type`), and the id of each text. Shared by both
//! vocabulary kinds ([`super::bpe`], [`super::spm`]).

use std::collections::HashMap;

use crate::error::{Error, Result};

use super::gguf::Gguf;
use super::gguf_meta::MetaValue;

/// llama.cpp's token types (`llama_token_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// An ordinary piece of text.
    Normal,
    /// The unknown token (`<unk>`): matched whole, printed as nothing.
    Unknown,
    /// A control token (`<|im_start|>`, `<start_of_turn>`): matched whole, printed as nothing.
    Control,
    /// A user-defined token (Gemma's `\n`, runs of spaces, `<table>`): matched whole, printed as itself.
    UserDefined,
    /// An unused slot: printed as nothing.
    Unused,
    /// A byte fallback token (`<0x0A>`): printed as that byte.
    Byte,
    /// A type llama.cpp does not know: printed as nothing.
    Undefined,
}

impl Kind {
    fn from_type(value: i64) -> Kind {
        match value {
            1 => Kind::Normal,
            2 => Kind::Unknown,
            3 => Kind::Control,
            4 => Kind::UserDefined,
            5 => Kind::Unused,
            6 => Kind::Byte,
            _ => Kind::Undefined,
        }
    }

    /// Whether text matching the token is cut out before the vocabulary's own encoding.
    pub(super) fn is_special(self) -> bool {
        matches!(self, Kind::Control | Kind::UserDefined | Kind::Unknown)
    }
}

/// The texts llama.cpp looks for, in this order, when a model names no
/// end-of-turn token (`tokenizer.ggml.eot_token_id`; Gemma 3 names none and
/// has `<end_of_turn>`).
pub(super) const END_OF_TURN: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "<｜end▁of▁sentence｜>",
    "<end_of_utterance>",
];

/// Further texts llama.cpp takes as an end of generation. It makes these and
/// [`END_OF_TURN`]'s control tokens whatever their type, so they print as
/// nothing (Gemma 3's `</s>` is user-defined, and ends generation).
const END_OF_GENERATION: &[&str] = &[
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "</s>",
    "<|eom_id|>",
    "[EOS]",
    "<eos>",
];

/// The vocabulary's tokens: text, kind and id by text.
pub(super) struct Vocab {
    texts: Vec<String>,
    kinds: Vec<Kind>,
    ids: HashMap<String, u32>,
}

impl Vocab {
    /// `tokenizer.ggml.tokens` and `tokenizer.ggml.token_type` of `file`; a
    /// `Config` error when there are no tokens.
    pub(super) fn read(file: &Gguf) -> Result<Self> {
        let list = |key: &str| file.meta(key).and_then(MetaValue::as_array).unwrap_or(&[]);
        let texts: Vec<String> = list("tokenizer.ggml.tokens")
            .iter()
            .map(|t| t.as_str().unwrap_or("").to_owned())
            .collect();
        if texts.is_empty() {
            return Err(Error::config("the model file has no tokenizer.ggml.tokens"));
        }
        let types = list("tokenizer.ggml.token_type");
        let ends = |t: &str| END_OF_TURN.contains(&t) || END_OF_GENERATION.contains(&t);
        let kinds = (0..texts.len())
            .map(|i| match ends(&texts[i]) {
                true => Kind::Control,
                false => Kind::from_type(types.get(i).and_then(MetaValue::as_f64).unwrap_or(1.0) as i64),
            })
            .collect();
        let mut ids = HashMap::with_capacity(texts.len());
        for (i, text) in texts.iter().enumerate() {
            // The first of two equal texts keeps its id.
            ids.entry(text.clone()).or_insert(i as u32);
        }
        Ok(Vocab { texts, kinds, ids })
    }

    /// How many tokens there are.
    pub(super) fn len(&self) -> usize {
        self.texts.len()
    }

    /// The id of the token spelt exactly `text`.
    pub(super) fn id(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }

    /// Token `id`'s text ("" past the vocabulary).
    pub(super) fn text(&self, id: u32) -> &str {
        self.texts.get(id as usize).map_or("", String::as_str)
    }

    /// Token `id`'s kind (`Undefined` past the vocabulary).
    pub(super) fn kind(&self, id: u32) -> Kind {
        self.kinds.get(id as usize).copied().unwrap_or(Kind::Undefined)
    }

    /// Every token matched whole in text, with its id.
    pub(super) fn specials(&self) -> impl Iterator<Item = (&str, u32)> {
        (0..self.texts.len())
            .filter(|&i| self.kinds[i].is_special() && !self.texts[i].is_empty())
            .map(|i| (self.texts[i].as_str(), i as u32))
    }
}
