//! The stored form of a [`LexicalIndex`]: compact, versioned bytes.
//!
//! ```text
//! magic    8 bytes  "LCTNBM25"
//! version  u32 LE   1
//! body     LEB128 unsigned varints:
//!          chunk count n, then n chunk lengths,
//!          term count, then per term (in byte order): its length in bytes,
//!          its UTF-8 bytes, its posting count, then per posting the gap to
//!          the previous chunk (the first: the chunk itself) and the count
//! crc      u32 LE   CRC-32 (IEEE) of everything before it
//! ```
//!
//! Reading checks what a search relies on (chunks within the book and
//! ascending, counts of at least one, terms valid UTF-8 and unique); bytes
//! that do not read are rebuilt from the chunks by the caller.

use std::collections::BTreeMap;

use super::index::{LexicalIndex, Posting};
use super::tokenize::MAX_TERM_BYTES;
use crate::error::{Error, Result};
use crate::retrieval::formats::zip::crc32;

/// The first bytes of every stored lexical index.
pub const MAGIC: [u8; 8] = *b"LCTNBM25";
/// The version this code writes and reads.
pub const VERSION: u32 = 1;

/// The bytes of `index`.
pub fn encode(index: &LexicalIndex) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + index.lengths.len() * 2 + index.postings.len() * 12);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    let number = |out: &mut Vec<u8>, mut n: u64| loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    };
    number(&mut out, index.lengths.len() as u64);
    index.lengths.iter().for_each(|&l| number(&mut out, l.into()));
    number(&mut out, index.postings.len() as u64);
    for (term, postings) in &index.postings {
        number(&mut out, term.len() as u64);
        out.extend_from_slice(term.as_bytes());
        number(&mut out, postings.len() as u64);
        let mut previous = 0;
        for p in postings {
            number(&mut out, (p.chunk - previous).into());
            number(&mut out, p.count.into());
            previous = p.chunk;
        }
    }
    let crc = crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// The index of a book of `chunk_count` chunks stored as `bytes`; an error
/// if they are not a readable index of this version for that many chunks.
pub fn decode(bytes: &[u8], chunk_count: usize) -> Result<LexicalIndex> {
    let bad = |why: &str| Error::storage(format!("unreadable lexical index: {why}"));
    if bytes.len() < 16 || bytes[..8] != MAGIC {
        return Err(bad("not a lexical index"));
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != VERSION {
        return Err(bad(&format!("version {version}, this Lectern reads {VERSION}")));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32(body).to_le_bytes() != crc {
        return Err(bad("checksum mismatch"));
    }
    let mut reader = Reader { bytes: &body[12..] };
    let n = reader.below(u32::MAX as u64 + 1)? as usize;
    if n != chunk_count {
        return Err(bad(&format!("{n} chunks, the book has {chunk_count}")));
    }
    let lengths = (0..n)
        .map(|_| reader.below(u32::MAX as u64 + 1).map(|l| l as u32))
        .collect::<Result<Vec<_>>>()?;
    let term_count = reader.below(body.len() as u64 + 1)? as usize;
    let mut postings = BTreeMap::new();
    for _ in 0..term_count {
        let len = reader.below(MAX_TERM_BYTES as u64 + 1)? as usize;
        let term = std::str::from_utf8(reader.take(len)?).map_err(|_| bad("a term is not UTF-8"))?;
        let list = reader.postings(n)?;
        if postings.insert(term.to_owned(), list).is_some() {
            return Err(bad("a term appears twice"));
        }
    }
    if !reader.bytes.is_empty() {
        return Err(bad("trailing bytes"));
    }
    Ok(LexicalIndex { postings, lengths })
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn error(why: &str) -> Error {
        Error::storage(format!("unreadable lexical index: {why}"))
    }

    fn number(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.bytes.split_first().ok_or_else(|| Self::error("truncated"))?;
            self.bytes = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Self::error("a number is too long"))
    }

    /// A number below `bound`.
    fn below(&mut self, bound: u64) -> Result<u64> {
        let n = self.number()?;
        if n >= bound {
            return Err(Self::error("a number is out of range"));
        }
        Ok(n)
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8]> {
        if len > self.bytes.len() {
            return Err(Self::error("truncated"));
        }
        let bytes: &'a [u8] = self.bytes;
        let (head, rest) = bytes.split_at(len);
        self.bytes = rest;
        Ok(head)
    }

    /// A posting list over chunks `0..n`: non-empty, chunks strictly ascending.
    fn postings(&mut self, n: usize) -> Result<Vec<Posting>> {
        let count = self.below(n as u64 + 1)? as usize;
        if count == 0 {
            return Err(Self::error("a term without postings"));
        }
        let mut list = Vec::with_capacity(count);
        let mut chunk = 0u64;
        for i in 0..count {
            let gap = self.number()?;
            if i > 0 && gap == 0 {
                return Err(Self::error("postings out of order"));
            }
            chunk = chunk.saturating_add(gap);
            let times = self.below(u32::MAX as u64 + 1)?;
            if chunk >= n as u64 || times == 0 {
                return Err(Self::error("a posting is out of range"));
            }
            list.push(Posting {
                chunk: chunk as u32,
                count: times as u32,
            });
        }
        Ok(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> LexicalIndex {
        LexicalIndex::build([
            "Syme met Gregory.",
            "東京 café, Gregory's garden",
            "",
            "syme syme",
        ])
    }

    #[test]
    fn round_trips_byte_for_byte() {
        let bytes = encode(&index());
        assert_eq!(decode(&bytes, 4).unwrap(), index());
        assert_eq!(
            encode(&decode(&bytes, 4).unwrap()),
            bytes,
            "the encoding is canonical"
        );
    }

    #[test]
    fn what_does_not_read_is_refused() {
        let bytes = encode(&index());
        assert!(decode(&bytes, 3).unwrap_err().to_string().contains("4 chunks"));
        let mut future = bytes.clone();
        future[8] = 2;
        assert!(decode(&future, 4).unwrap_err().to_string().contains("version 2"));
        let mut flipped = bytes.clone();
        flipped[20] ^= 0x01;
        assert!(decode(&flipped, 4).unwrap_err().to_string().contains("checksum"));
        for cut in [0, 7, 12, 16, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], 4).is_err(), "cut at {cut}");
        }
        assert!(decode(b"LCTNHNSW\x02\0\0\0 an ANN snapshot", 4).is_err());
    }

    #[test]
    fn out_of_range_postings_are_refused_even_with_a_good_checksum() {
        let mut bad = index();
        bad.postings
            .insert("ghost".into(), vec![Posting { chunk: 9, count: 1 }]);
        assert!(decode(&encode(&bad), 4)
            .unwrap_err()
            .to_string()
            .contains("out of range"));
        let mut unordered = index();
        let two = vec![Posting { chunk: 1, count: 1 }, Posting { chunk: 1, count: 1 }];
        unordered.postings.insert("twice".into(), two);
        assert!(decode(&encode(&unordered), 4)
            .unwrap_err()
            .to_string()
            .contains("order"));
    }
}
