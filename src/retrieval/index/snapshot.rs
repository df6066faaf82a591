//! Lectern's index snapshot format: an [`HnswGraph`] (its layers and id
//! mapping, never the vectors, which the vector store keeps) in bytes of our
//! own, so what is stored does not depend on a dependency's private layout.
//!
//! Version 2 (the bytes of version 1, whose graphs were built over `f32`
//! distances with pruned links kept, far denser: they are rebuilt):
//!
//! ```text
//! magic    8 bytes  "LCTNHNSW"
//! version  u32 LE   2
//! body     LEB128 unsigned varints:
//!          node count n, ef_search, upper layer count L,
//!          the node count of each upper layer (lowest first),
//!          n ids (each node's position in the vector set),
//!          layer zero: per node a link count (<= 64), then the links,
//!          each upper layer: per node a link count (<= 32), then the links
//! crc      u32 LE   CRC-32 (IEEE) of everything before it
//! ```
//!
//! Reading checks everything a search relies on (ids within the vector set,
//! links within their layer, node 0 on every layer), so a snapshot that reads
//! never makes a search panic; one that does not read is rebuilt by the caller.

use crate::error::{Error, Result};
use crate::retrieval::index::built_graph::{BUILT_UPPER_LINKS, BUILT_ZERO_LINKS};
use crate::retrieval::index::hnsw::{HnswGraph, Layer};

/// The first bytes of every snapshot.
pub const MAGIC: [u8; 8] = *b"LCTNHNSW";
/// The version this code writes and reads.
pub const VERSION: u32 = 2;

/// The snapshot of `graph`, searched with `ef_search`.
pub fn encode(graph: &HnswGraph, ef_search: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + graph.zero.len() * 2);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    let mut body = Writer(out);
    body.number(graph.ids.len());
    body.number(ef_search);
    body.number(graph.upper.len());
    for layer in &graph.upper {
        body.number(layer.len());
    }
    for &id in &graph.ids {
        body.number(id as usize);
    }
    body.links(&graph.zero);
    for layer in &graph.upper {
        body.links(layer);
    }
    let mut out = body.0;
    let crc = crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// The graph and `ef_search` of a snapshot over `vector_count` vectors; an
/// error if the bytes are not a readable snapshot of this version for them.
pub fn decode(bytes: &[u8], vector_count: usize) -> Result<(HnswGraph, usize)> {
    let unreadable = |why: &str| Error::storage(format!("the index snapshot is unreadable: {why}"));
    if bytes.len() < MAGIC.len() + 8 || bytes[..MAGIC.len()] != MAGIC {
        return Err(unreadable("not a Lectern index snapshot"));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("four bytes"));
    if version != VERSION {
        return Err(unreadable(&format!(
            "version {version}, this code reads {VERSION}"
        )));
    }
    let (content, crc) = bytes.split_at(bytes.len() - 4);
    if crc32(content) != u32::from_le_bytes(crc.try_into().expect("four bytes")) {
        return Err(unreadable("checksum mismatch"));
    }
    let mut body = Reader {
        bytes: &content[12..],
    };
    let nodes = body.number()?;
    if nodes != vector_count {
        return Err(unreadable(&format!("{nodes} nodes for {vector_count} vectors")));
    }
    let ef_search = body.number()?;
    let layer_count = body.number()?;
    let mut sizes = Vec::new();
    let mut below = nodes;
    for _ in 0..layer_count.min(64) {
        let size = body.number()?;
        if size == 0 || size > below {
            return Err(unreadable("an upper layer larger than the one below it"));
        }
        sizes.push(size);
        below = size;
    }
    if sizes.len() != layer_count {
        return Err(unreadable("too many layers"));
    }
    let mut ids = Vec::with_capacity(nodes);
    for _ in 0..nodes {
        ids.push(body.below(vector_count)? as u32);
    }
    let zero = body.links(nodes, BUILT_ZERO_LINKS, nodes)?;
    let mut upper = Vec::with_capacity(layer_count);
    for &size in &sizes {
        upper.push(body.links(size, BUILT_UPPER_LINKS, size)?);
    }
    if !body.bytes.is_empty() {
        return Err(unreadable("trailing bytes"));
    }
    Ok((HnswGraph { ids, zero, upper }, ef_search))
}

struct Writer(Vec<u8>);

impl Writer {
    fn number(&mut self, mut value: usize) {
        while value >= 0x80 {
            self.0.push((value as u8) | 0x80);
            value >>= 7;
        }
        self.0.push(value as u8);
    }

    /// Each node's links after their count.
    fn links(&mut self, layer: &Layer) {
        for node in 0..layer.len() {
            let links = layer.of(node as u32);
            self.number(links.len());
            for &link in links {
                self.number(link as usize);
            }
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn number(&mut self) -> Result<usize> {
        let mut value: u64 = 0;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self
                .bytes
                .split_first()
                .ok_or_else(|| Error::storage("the index snapshot is unreadable: it ends early"))?;
            self.bytes = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return usize::try_from(value)
                    .map_err(|_| Error::storage("the index snapshot is unreadable: a number too large"));
            }
        }
        Err(Error::storage(
            "the index snapshot is unreadable: a number too long",
        ))
    }

    /// A number that must be below `bound`.
    fn below(&mut self, bound: usize) -> Result<usize> {
        let value = self.number()?;
        if value >= bound {
            return Err(Error::storage(format!(
                "the index snapshot is unreadable: {value} out of range (< {bound})"
            )));
        }
        Ok(value)
    }

    /// `nodes` nodes of at most `width` links each, all below `bound`.
    fn links(&mut self, nodes: usize, width: usize, bound: usize) -> Result<Layer> {
        let mut layer = Layer::default();
        for _ in 0..nodes {
            let count = self.number()?;
            if count > width {
                return Err(Error::storage("the index snapshot is unreadable: too many links"));
            }
            let mut links = [0u32; BUILT_ZERO_LINKS];
            for slot in &mut links[..count] {
                *slot = self.below(bound)? as u32;
            }
            layer.push(links[..count].iter().copied());
        }
        Ok(layer)
    }
}

/// CRC-32 (IEEE 802.3, as zip and PNG use it).
fn crc32(bytes: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, entry) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *entry = c;
    }
    !bytes.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(nodes: &[&[u32]]) -> Layer {
        let mut layer = Layer::default();
        nodes.iter().for_each(|links| layer.push(links.iter().copied()));
        layer
    }

    fn graph() -> HnswGraph {
        HnswGraph {
            ids: vec![2, 0, 1],
            zero: layer(&[&[1, 2], &[0], &[0, 1]]),
            upper: vec![layer(&[&[1], &[0]])],
        }
    }

    #[test]
    fn round_trips_and_checks_what_it_reads() {
        let bytes = encode(&graph(), 100);
        assert_eq!(decode(&bytes, 3).unwrap(), (graph(), 100));
        assert!(decode(&bytes, 4).is_err(), "another vector count");
        let mut future = bytes.clone();
        future[8] = 3;
        let err = decode(&future, 3).unwrap_err().to_string();
        assert!(err.contains("version 3"), "{err}");
        let mut old = bytes.clone();
        old[8] = 1;
        let err = decode(&old, 3).unwrap_err().to_string();
        assert!(
            err.contains("version 1"),
            "a version 1 snapshot is rebuilt: {err}"
        );
        let mut flipped = bytes.clone();
        let last = flipped.len() - 5;
        flipped[last] ^= 0x01;
        assert!(decode(&flipped, 3).unwrap_err().to_string().contains("checksum"));
        for cut in [0, 5, 12, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], 3).is_err(), "cut at {cut}");
        }
        assert!(decode(b"\x00\x01postcard bytes of something else", 3).is_err());
    }

    #[test]
    fn out_of_range_links_are_refused_even_with_a_good_checksum() {
        let mut bad = graph();
        bad.upper[0].links[0] = 2; // node 2 is not on the upper layer
        let bytes = encode(&bad, 100);
        assert!(decode(&bytes, 3)
            .unwrap_err()
            .to_string()
            .contains("out of range"));
    }

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }
}
