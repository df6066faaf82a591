//! The inverted index of a book's chunks: for each term, the chunks it
//! occurs in (ascending) with how often, and each chunk's length in terms.

use std::collections::BTreeMap;

use super::tokenize::terms;

/// One chunk a term occurs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    /// The chunk's position in the book.
    pub chunk: u32,
    /// How many times the term occurs in it (at least 1).
    pub count: u32,
}

/// Terms to postings, and chunk lengths: what BM25 reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LexicalIndex {
    /// Each term's postings, chunks ascending; terms in byte order (as
    /// stored; a B-tree weighs less in the page's module than a hash map and a sort).
    pub(super) postings: BTreeMap<String, Vec<Posting>>,
    /// Each chunk's length in terms, in chunk order.
    pub(super) lengths: Vec<u32>,
}

impl LexicalIndex {
    /// The index of `texts` (a book's chunks, in order).
    pub fn build<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut index = LexicalIndex::default();
        for text in texts {
            index.push(text);
        }
        index
    }

    /// Adds the next chunk.
    pub fn push(&mut self, text: &str) {
        let chunk = self.lengths.len() as u32;
        let all = terms(text);
        self.lengths.push(all.len() as u32);
        for term in all {
            let list = self.postings.entry(term).or_default();
            match list.last_mut() {
                Some(last) if last.chunk == chunk => last.count += 1,
                _ => list.push(Posting { chunk, count: 1 }),
            }
        }
    }

    /// How many chunks it covers.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Whether it covers none.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// How many distinct terms.
    pub fn term_count(&self) -> usize {
        self.postings.len()
    }

    /// The postings of `term` (already a term: lower-cased), if it occurs.
    pub fn postings(&self, term: &str) -> Option<&[Posting]> {
        self.postings.get(term).map(Vec::as_slice)
    }

    /// Chunk `i`'s length in terms.
    pub fn length(&self, i: usize) -> u32 {
        self.lengths[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_count_occurrences_per_chunk_in_order() {
        let index = LexicalIndex::build(["the cat sat", "The dog", "cat cat dog"]);
        assert_eq!(index.len(), 3);
        assert_eq!(index.lengths, [3, 2, 3]);
        assert_eq!(
            index.postings("cat").unwrap(),
            [Posting { chunk: 0, count: 1 }, Posting { chunk: 2, count: 2 }]
        );
        assert_eq!(index.postings("the").unwrap().len(), 2);
        assert_eq!(index.postings("bird"), None);
        assert_eq!(index.term_count(), 4);
    }
}
