//! A GGUF's tokenizer, encoding and printing tokens as llama.cpp does: the
//! special tokens written in the text cut out first ([`super::special_tokens`]),
//! the text between them encoded by the vocabulary's kind — byte-level BPE
//! (`tokenizer.ggml.model = gpt2`: SmolLM2, Llama 3; [`super::bpe`]) or
//! SentencePiece (`llama`: Gemma 3; [`super::spm`]) — and ids back to bytes.

use crate::error::{Error, Result};

use super::bpe::Bpe;
use super::gguf::Gguf;
use super::gguf_meta::MetaValue;
use super::special_tokens::{Fragment, SpecialTokens};
use super::spm::{self, Spm};
use super::vocab::{Kind, Vocab, END_OF_TURN};

/// How the text between special tokens is encoded (boxed: each holds a table a byte).
enum Encoding {
    Bpe(Box<Bpe>),
    Spm(Box<Spm>),
}

/// A model's vocabulary: text to token ids and back.
pub struct Tokenizer {
    vocab: Vocab,
    encoding: Encoding,
    specials: SpecialTokens,
    /// Whether printing drops the first token's leading space (what
    /// `tokenizer.ggml.add_space_prefix` puts there).
    strip_first_space: bool,
    /// The beginning-of-sequence token, when the model wants one first.
    pub bos: Option<u32>,
    /// The end-of-sequence token.
    pub eos: Option<u32>,
    /// The end-of-turn token, when the model has one (`<|im_end|>`, `<end_of_turn>`).
    pub eot: Option<u32>,
}

impl Tokenizer {
    /// The vocabulary in `file`'s metadata; a `Config` error for a kind other
    /// than `gpt2` and `llama`, or without tokens.
    pub fn read(file: &Gguf) -> Result<Self> {
        let model = file.text("tokenizer.ggml.model").unwrap_or("");
        if !matches!(model, "gpt2" | "llama") {
            return Err(Error::config(format!(
                "the model's tokenizer is '{model}'; Lectern reads byte-level BPE ('gpt2') and SentencePiece ('llama') vocabularies"
            )));
        }
        let vocab = Vocab::read(file)?;
        let encoding = match model {
            "gpt2" => Encoding::Bpe(Box::new(Bpe::read(file))),
            _ => Encoding::Spm(Box::new(Spm::read(file, &vocab))),
        };
        let spm = matches!(encoding, Encoding::Spm(_));
        let flag = |key: &str, default: bool| file.meta(key).and_then(MetaValue::as_bool).unwrap_or(default);
        let id = |key: &str| {
            let id = file.meta(key).and_then(MetaValue::as_u64)?;
            (id < vocab.len() as u64).then_some(id as u32)
        };
        Ok(Tokenizer {
            bos: id("tokenizer.ggml.bos_token_id").filter(|_| flag("tokenizer.ggml.add_bos_token", spm)),
            eos: id("tokenizer.ggml.eos_token_id"),
            eot: id("tokenizer.ggml.eot_token_id").or_else(|| END_OF_TURN.iter().find_map(|t| vocab.id(t))),
            strip_first_space: match &encoding {
                Encoding::Spm(spm) => spm.add_space_prefix(),
                Encoding::Bpe(_) => flag("tokenizer.ggml.add_space_prefix", false),
            },
            specials: SpecialTokens::new(vocab.specials()),
            vocab,
            encoding,
        })
    }

    /// Tokens in the vocabulary.
    pub fn len(&self) -> usize {
        self.vocab.len()
    }

    /// Whether the vocabulary is empty (never, once read).
    pub fn is_empty(&self) -> bool {
        self.vocab.len() == 0
    }

    /// The id of the token spelt exactly `text`, if there is one.
    pub fn id_of(&self, text: &str) -> Option<u32> {
        self.vocab.id(text)
    }

    /// A prompt's token ids: the beginning-of-sequence token first when the
    /// model asks for one (`tokenizer.ggml.add_bos_token`, as llama.cpp adds
    /// it), then [`Self::encode`]'s.
    pub fn encode_prompt(&self, text: &str) -> Vec<u32> {
        let mut ids: Vec<u32> = self.bos.into_iter().collect();
        ids.extend(self.encode(text));
        ids
    }

    /// `text` as token ids; special tokens written in it (`<|im_start|>`,
    /// `<start_of_turn>`) are matched whole. No beginning-of-sequence token
    /// is added.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        let mut after_special = true;
        for fragment in self.specials.split(text) {
            match fragment {
                Fragment::Token(id) => out.push(id),
                Fragment::Text(plain) => match &self.encoding {
                    Encoding::Bpe(bpe) => bpe.encode(&self.vocab, plain, &mut out),
                    Encoding::Spm(spm) => spm.encode(&self.vocab, plain, after_special, &mut out),
                },
            }
            after_special = matches!(fragment, Fragment::Token(_));
        }
        out
    }

    /// The bytes token `id` stands for: none for a control, unknown or unused
    /// token (or an id past the vocabulary), a user-defined token as written,
    /// a byte token's byte.
    pub fn token_bytes(&self, id: u32) -> Vec<u8> {
        let text = self.vocab.text(id);
        match self.vocab.kind(id) {
            Kind::Control | Kind::Unknown | Kind::Unused | Kind::Undefined => Vec::new(),
            Kind::UserDefined => text.as_bytes().to_vec(),
            Kind::Byte => spm::byte_of(text).into_iter().collect(),
            Kind::Normal => match &self.encoding {
                Encoding::Bpe(bpe) => bpe.piece_bytes(text),
                Encoding::Spm(_) => spm::piece_bytes(text),
            },
        }
    }

    /// `ids` as text (invalid UTF-8 replaced), less the first token's leading
    /// space when the vocabulary puts one before a prompt's text.
    pub fn decode(&self, ids: &[u32]) -> String {
        let mut bytes = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let piece = self.token_bytes(*id);
            let skip = i == 0 && self.strip_first_space && piece.first() == Some(&b' ');
            bytes.extend_from_slice(&piece[skip as usize..]);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::Tokenizer;
    use crate::generation::gguf::Gguf;
    use crate::generation::test_gguf::{array, gguf, spm, text};

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

    /// Gemma 3's shape in small: control, user-defined (`\n`, two spaces,
    /// `</s>`), byte and normal tokens, no space prefix.
    const GEMMA_LIKE: &[(&str, f32, i32)] = &[
        ("<pad>", -1000.0, 3),
        ("<eos>", -1000.0, 3),
        ("<bos>", -1000.0, 3),
        ("<start_of_turn>", -1000.0, 3),
        ("<end_of_turn>", -1000.0, 3),
        ("\n", -1000.0, 4),
        ("  ", -1000.0, 4),
        ("</s>", -1000.0, 4),
        ("<0xC3>", 0.0, 6),
        ("<0xA9>", 0.0, 6),
        ("▁", -9.0, 1),
        ("u", -9.0, 1),
        ("s", -9.0, 1),
        ("e", -9.0, 1),
        ("r", -9.0, 1),
        ("us", -3.0, 1),
        ("er", -2.0, 1),
        ("user", -1.0, 1),
        ("▁user", -0.5, 1),
    ];

    #[test]
    fn a_sentencepiece_vocabulary_matches_special_tokens_first_and_prints_back() {
        let bytes = spm(GEMMA_LIKE, false);
        let tokenizer = Tokenizer::read(&Gguf::parse(&bytes).unwrap()).unwrap();
        assert_eq!((tokenizer.bos, tokenizer.eot), (Some(2), Some(4)));
        let text = "<start_of_turn>user\né  user</s><end_of_turn>\n";
        let ids = tokenizer.encode_prompt(text);
        assert_eq!(ids, [2, 3, 17, 5, 8, 9, 6, 17, 7, 4, 5]);
        assert_eq!(
            tokenizer.decode(&ids),
            "user\né  user\n",
            "control tokens and </s> print nothing"
        );
        assert_eq!(tokenizer.encode(" user"), [18]);
        assert_eq!(tokenizer.decode(&[18, 18]), " user user");
    }

    #[test]
    fn a_space_prefix_goes_before_text_after_a_special_token_and_off_the_first_printed_token() {
        let bytes = spm(GEMMA_LIKE, true);
        let tokenizer = Tokenizer::read(&Gguf::parse(&bytes).unwrap()).unwrap();
        // After any token matched whole, even the user-defined `\n`, as llama.cpp does.
        let ids = tokenizer.encode("user<end_of_turn>user\nuser");
        assert_eq!(ids, [18, 4, 18, 5, 18]);
        assert_eq!(tokenizer.decode(&ids), "user user\n user");
    }

    #[test]
    fn another_vocabulary_kind_is_a_config_error() {
        for model in ["bert", "t5"] {
            let bytes = gguf(&[("tokenizer.ggml.model", 8, text(model))]);
            let error = Tokenizer::read(&Gguf::parse(&bytes).unwrap()).err().unwrap();
            assert_eq!(error.name(), "ConfigError");
        }
        let bytes = gguf(&[("tokenizer.ggml.model", 8, text("llama"))]);
        let error = Tokenizer::read(&Gguf::parse(&bytes).unwrap()).err().unwrap();
        assert_eq!(error.name(), "ConfigError", "no tokens");
        assert!(Gguf::parse(b"GGUF\x09\0\0\0").is_err(), "an unknown version");
        assert!(Gguf::parse(b"not a model").is_err());
    }
}
