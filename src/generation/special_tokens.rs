//! The tokens matched whole in text before a vocabulary's own encoding
//! (control, user-defined and unknown tokens), cut out as llama.cpp's
//! `tokenizer_st_partition` does: the longest token first, each at every
//! place it occurs in the text still uncut, left to right.

use std::collections::{BTreeSet, HashMap};

/// A piece of text after the special tokens are cut out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fragment<'t> {
    /// Text for the vocabulary's encoding.
    Text(&'t str),
    /// A special token matched whole.
    Token(u32),
}

/// The special tokens of a vocabulary.
pub(super) struct SpecialTokens {
    /// Text and id, the longest first (then by id).
    tokens: Vec<(String, u32)>,
    /// Index into `tokens` by text.
    by_text: HashMap<String, usize>,
    /// The lengths in bytes special tokens have, by their first byte.
    lengths: HashMap<u8, Vec<usize>>,
}

impl SpecialTokens {
    /// The tokens `(text, id)` (an empty text is left out).
    pub(super) fn new<'a>(specials: impl Iterator<Item = (&'a str, u32)>) -> Self {
        let mut tokens: Vec<(String, u32)> = specials
            .filter(|(t, _)| !t.is_empty())
            .map(|(t, id)| (t.to_owned(), id))
            .collect();
        tokens.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
        let mut by_text = HashMap::with_capacity(tokens.len());
        let mut lengths: HashMap<u8, Vec<usize>> = HashMap::new();
        for (i, (text, _)) in tokens.iter().enumerate() {
            by_text.entry(text.clone()).or_insert(i);
            let list = lengths.entry(text.as_bytes()[0]).or_default();
            if !list.contains(&text.len()) {
                list.push(text.len());
            }
        }
        SpecialTokens {
            tokens,
            by_text,
            lengths,
        }
    }

    /// `text` cut into plain text and special tokens, in order.
    pub(super) fn split<'t>(&self, text: &'t str) -> Vec<Fragment<'t>> {
        let mut fragments = vec![Fragment::Text(text)];
        if text.is_empty() {
            fragments.clear();
        }
        for index in self.occurring(text) {
            let (special, id) = (&self.tokens[index].0, self.tokens[index].1);
            let mut next = Vec::with_capacity(fragments.len() + 2);
            for fragment in fragments {
                let Fragment::Text(plain) = fragment else {
                    next.push(fragment);
                    continue;
                };
                let mut from = 0;
                for (at, _) in plain.match_indices(special.as_str()) {
                    if at > from {
                        next.push(Fragment::Text(&plain[from..at]));
                    }
                    next.push(Fragment::Token(id));
                    from = at + special.len();
                }
                if from < plain.len() {
                    next.push(Fragment::Text(&plain[from..]));
                }
            }
            fragments = next;
        }
        fragments
    }

    /// The indices (in matching order) of the special tokens found anywhere in
    /// `text`: only they can match in its pieces, and few of thousands do.
    fn occurring(&self, text: &str) -> BTreeSet<usize> {
        let mut found = BTreeSet::new();
        for (at, _) in text.char_indices() {
            let Some(lengths) = self.lengths.get(&text.as_bytes()[at]) else {
                continue;
            };
            for len in lengths {
                if let Some(index) = text.get(at..at + len).and_then(|t| self.by_text.get(t)) {
                    found.insert(*index);
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::{Fragment, SpecialTokens};

    fn specials(list: &[(&'static str, u32)]) -> SpecialTokens {
        SpecialTokens::new(list.iter().copied())
    }

    #[test]
    fn special_tokens_are_cut_out_longest_first() {
        let s = specials(&[("<s>", 1), ("\n", 2), ("  ", 3), ("   ", 4)]);
        use Fragment::{Text, Token};
        assert_eq!(
            s.split("<s>a\nb     c"),
            [
                Token(1),
                Text("a"),
                Token(2),
                Text("b"),
                Token(4),
                Token(3),
                Text("c")
            ]
        );
        assert_eq!(s.split("plain"), [Text("plain")]);
        assert_eq!(s.split(""), []);
        // The longer token goes first even where the shorter one starts earlier (llama.cpp's order).
        let s = specials(&[("ab", 1), ("bcd", 2)]);
        assert_eq!(s.split("abcd"), [Text("a"), Token(2)]);
        assert_eq!(s.split("é ab ü"), [Text("é "), Token(1), Text(" ü")]);
    }
}
