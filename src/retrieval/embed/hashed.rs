//! The built-in offline embedder: hashed word, word-pair and character
//! n-gram features with sublinear term weighting. No network, no model
//! download; good enough to find a book's passages by their words.

use std::collections::HashMap;

use futures::future::LocalBoxFuture;

use crate::error::Result;
use crate::retrieval::embed::Embedder;
use crate::retrieval::text::breaks::is_wide;
use crate::retrieval::vectors::vector::normalize;
use crate::runtime::cancel::CancelToken;

/// Function words that carry little meaning for retrieval (what IDF would
/// weigh down): dropped before hashing.
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because",
    "been", "before", "being", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "for",
    "from", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "just", "me", "more", "most", "my", "no", "nor", "not", "now", "of",
    "off", "on", "once", "only", "or", "other", "our", "out", "over", "own", "said", "same", "she", "should",
    "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when",
    "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
];

/// The default embedder when none is configured.
#[derive(Debug, Clone)]
pub struct HashedEmbedder {
    dims: usize,
    model: String,
}

impl Default for HashedEmbedder {
    fn default() -> Self {
        Self::new(1024)
    }
}

impl HashedEmbedder {
    /// An embedder of `dims` dimensions.
    pub fn new(dims: usize) -> Self {
        HashedEmbedder {
            dims,
            model: format!("lectern-hashed-v1/{dims}"),
        }
    }

    /// The vector of one text.
    pub fn embed_one(&self, text: &str) -> Vec<f32> {
        let mut features: HashMap<u64, f32> = HashMap::new();
        let words: Vec<String> = tokens(text)
            .filter(|w| !STOPWORDS.contains(&w.as_str()))
            .map(|w| stem(&w))
            .collect();
        for word in &words {
            *features.entry(hash(word.as_bytes(), 1)).or_default() += 1.0;
            let marked: Vec<char> = format!("#{word}#").chars().collect();
            for gram in marked.windows(3) {
                let gram: String = gram.iter().collect();
                *features.entry(hash(gram.as_bytes(), 2)).or_default() += 0.25;
            }
        }
        for word in words.iter().filter(|w| w.chars().any(is_wide)) {
            cjk_features(word, &mut features);
        }
        for pair in words.windows(2) {
            let bigram = format!("{} {}", pair[0], pair[1]);
            *features.entry(hash(bigram.as_bytes(), 3)).or_default() += 0.5;
        }
        let mut vector = vec![0.0f32; self.dims];
        for (feature, count) in features {
            let slot = (feature % self.dims as u64) as usize;
            let sign = if feature >> 63 == 1 { -1.0 } else { 1.0 };
            vector[slot] += sign * (1.0 + count.ln().max(0.0));
        }
        normalize(&mut vector);
        vector
    }
}

/// Chinese and Japanese run words together without spaces, so a "word" is
/// a whole clause: its character bigrams and single ideographs are what a
/// query shares with it. (Text without CJK characters gets none of these
/// features: its vectors are as before.)
fn cjk_features(word: &str, features: &mut HashMap<u64, f32>) {
    let chars: Vec<char> = word.chars().collect();
    for pair in chars.windows(2).filter(|p| is_wide(p[0]) && is_wide(p[1])) {
        let bigram: String = pair.iter().collect();
        *features.entry(hash(bigram.as_bytes(), 4)).or_default() += 1.0;
    }
    let ideograph = |c: &&char| matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3FFFF}');
    for c in chars.iter().filter(ideograph) {
        let mut buf = [0; 4];
        *features
            .entry(hash(c.encode_utf8(&mut buf).as_bytes(), 5))
            .or_default() += 0.5;
    }
}

/// Lower-cased words of letters and digits.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
}

/// A light stemmer: possessives and plural `s`.
fn stem(word: &str) -> String {
    let word = word.strip_suffix("'s").unwrap_or(word);
    if word.len() > 4 && word.ends_with('s') && !word.ends_with("ss") {
        word[..word.len() - 1].to_owned()
    } else {
        word.to_owned()
    }
}

/// FNV-1a, seeded per feature kind so words and n-grams do not collide by design.
fn hash(bytes: &[u8], kind: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ kind.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Embedder for HashedEmbedder {
    fn model(&self) -> &str {
        &self.model
    }

    fn batch_size(&self) -> usize {
        256
    }

    fn is_local(&self) -> bool {
        true
    }

    fn is_semantic(&self) -> bool {
        false
    }

    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Vec<f32>>>> {
        Box::pin(async move {
            cancel.check()?;
            Ok(texts.iter().map(|t| self.embed_one(t)).collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::vectors::vector::dot;

    #[test]
    fn related_texts_score_higher_than_unrelated_ones() {
        let e = HashedEmbedder::default();
        let query = e.embed_one("Who was the poet with the red hair?");
        let related =
            e.embed_one("The poet Lucian Gregory had red hair, parted in the middle like a woman's.");
        let unrelated = e.embed_one("The train rushed through the tunnel towards the river at midnight.");
        assert!(dot(&query, &related) > dot(&query, &unrelated) + 0.1);
        assert!((dot(&related, &related) - 1.0).abs() < 1e-5);
    }

    #[test]
    fn cjk_queries_find_words_inside_unspaced_clauses() {
        let e = HashedEmbedder::default();
        let passages = [
            "吾輩は猫である",
            "名前はまだ無い",
            "台所の棚には鰹節が三本並んでいた",
        ];
        let vectors: Vec<Vec<f32>> = passages.iter().map(|p| e.embed_one(p)).collect();
        for (query, expected) in [
            ("猫の名前", 1),
            ("鰹節", 2),
            ("猫", 0),
            ("学而时习之", usize::MAX),
        ] {
            let q = e.embed_one(query);
            let scores: Vec<f32> = vectors.iter().map(|v| dot(&q, v)).collect();
            let best = (0..3).max_by(|&a, &b| scores[a].total_cmp(&scores[b])).unwrap();
            if expected == usize::MAX {
                assert!(scores.iter().all(|s| s.abs() < 0.2), "{query}: {scores:?}");
            } else {
                assert_eq!(best, expected, "{query}: {scores:?}");
                assert!(scores[best] > 0.1, "{query}: {scores:?}");
            }
        }
    }

    #[test]
    fn deterministic_and_stopwords_ignored() {
        let e = HashedEmbedder::new(256);
        assert_eq!(e.embed_one("Sunday's gardens"), e.embed_one("the Sunday garden"));
        assert_eq!(e.model(), "lectern-hashed-v1/256");
    }
}
