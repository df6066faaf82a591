//! Grouped-query attention of the query heads that share one key/value head
//! over the cached positions, computed as llama.cpp's CPU flash attention
//! computes it (its default): each query meets the F16 keys as half floats,
//! and the weighted sum of values runs online (rescaled at each new maximum)
//! in a half-float accumulator. The heads of a group, and the group's heads
//! of a block of tokens (a prompt's), go through each cached key and value
//! together (read once for all of them); each query's values are the same
//! as when it is attended alone.

use crate::kernels::attention::{accumulate_half, dots_in_f64, scale_half};
use crate::kernels::half::round_to_half;
use std::ops::Range;

/// The most queries that go through the cache together; more go in parts.
pub const TOGETHER: usize = 8;

/// Where a group's attention reads: the cached keys and values (`kv_dim`
/// wide rows), the column of its key/value head, and its width.
#[derive(Clone, Copy)]
pub struct Cached<'a> {
    /// Cached keys, a row of `kv_dim` per position.
    pub keys: &'a [f32],
    /// Cached values, a row of `kv_dim` per position.
    pub values: &'a [f32],
    /// The width of a cached row (key/value heads × head width).
    pub kv_dim: usize,
    /// Where the key/value head's columns start in a row.
    pub column: usize,
    /// The width of one head.
    pub head_dim: usize,
}

/// The tokens of a block whose tokens' queries of one key/value head go
/// through the cache together: `queries` holds each token's heads of the
/// group (`heads` of them, `head_dim` wide) end to end, token after token,
/// and `spans` each token's positions (a prompt's tokens see ever more).
pub struct Block<'a> {
    /// The queries, token after token.
    pub queries: &'a [f32],
    /// Each token's cached positions.
    pub spans: &'a [Range<usize>],
    /// The group's query heads a token.
    pub heads: usize,
}

/// The running state of a block's queries: each as half floats, its
/// half-float accumulator, its largest score and its sum of weights so far.
pub struct Online {
    query: Vec<f32>,
    out: Vec<f32>,
    max: Vec<f32>,
    total: Vec<f32>,
}

impl Online {
    /// Room for `queries` queries of `head_dim`.
    pub fn new(queries: usize, head_dim: usize) -> Self {
        Online {
            query: vec![0.0; queries * head_dim],
            out: vec![0.0; queries * head_dim],
            max: vec![0.0; queries],
            total: vec![0.0; queries],
        }
    }
}

/// `out` = softmax(q·Kᵀ · `scale`) · V for each query head laid end to end
/// in `queries` (and its result in `out`, in the same place), over the cached
/// keys and values of `positions`.
pub fn attend_group(
    queries: &[f32],
    cached: Cached<'_>,
    positions: Range<usize>,
    scale: f32,
    out: &mut [f32],
) {
    let heads = queries.len() / cached.head_dim;
    let mut online = Online::new(heads, cached.head_dim);
    let block = Block {
        queries,
        spans: &[positions],
        heads,
    };
    attend_block(&block, cached, scale, &mut online, out);
}

/// [`attend_group`] for each token of `block`, into `out` (laid out as its
/// queries), with `online` room for them all. The positions every token
/// sees go through with all of the block's queries at once; those only some
/// see, token by token before and after them (each query's positions stay in
/// order, so its values are those it gets alone).
pub fn attend_block(block: &Block<'_>, cached: Cached<'_>, scale: f32, online: &mut Online, out: &mut [f32]) {
    let (hd, width) = (cached.head_dim, block.heads * cached.head_dim);
    let n = block.queries.len();
    for (dst, src) in online.query[..n].iter_mut().zip(block.queries) {
        *dst = round_to_half(*src);
    }
    online.out[..n].fill(0.0);
    online.max[..n / hd].fill(f32::NEG_INFINITY);
    online.total[..n / hd].fill(0.0);
    let start = block.spans.iter().map(|s| s.start).max().unwrap_or(0);
    let end = block.spans.iter().map(|s| s.end).min().unwrap_or(0);
    let joint = start..end.max(start);
    for (token, span) in block.spans.iter().enumerate() {
        let before = span.start..if joint.is_empty() { span.end } else { joint.start };
        walk_any(online, token * width..(token + 1) * width, cached, before, scale);
    }
    walk_any(online, 0..n, cached, joint.clone(), scale);
    for (token, span) in block.spans.iter().enumerate() {
        let after = if joint.is_empty() {
            span.end..span.end
        } else {
            joint.end..span.end
        };
        walk_any(online, token * width..(token + 1) * width, cached, after, scale);
    }
    for ((head, total), out) in online.out[..n]
        .chunks_exact(hd)
        .zip(&online.total)
        .zip(out.chunks_exact_mut(hd))
    {
        let inverse = 1.0 / total;
        for (o, v) in out.iter_mut().zip(head) {
            *o = v * inverse;
        }
    }
}

/// [`walk`] of the queries in `range` (of `online`'s values), in parts of at most [`TOGETHER`].
fn walk_any(
    online: &mut Online,
    range: Range<usize>,
    cached: Cached<'_>,
    positions: Range<usize>,
    scale: f32,
) {
    if positions.is_empty() {
        return;
    }
    let hd = cached.head_dim;
    let mut at = range.start;
    while at < range.end {
        let part = at..(at + TOGETHER * hd).min(range.end);
        let walked = (cached, positions.clone(), scale);
        match part.len() / hd {
            1 => walk::<1>(online, part.clone(), walked),
            2 => walk::<2>(online, part.clone(), walked),
            3 => walk::<3>(online, part.clone(), walked),
            4 => walk::<4>(online, part.clone(), walked),
            5 => walk::<5>(online, part.clone(), walked),
            6 => walk::<6>(online, part.clone(), walked),
            7 => walk::<7>(online, part.clone(), walked),
            _ => walk::<8>(online, part.clone(), walked),
        }
        at = part.end;
    }
}

/// `N` queries (`range` of `online`'s values) through the cached keys and
/// values of `positions`, in order.
fn walk<const N: usize>(
    online: &mut Online,
    range: Range<usize>,
    (cached, positions, scale): (Cached<'_>, Range<usize>, f32),
) {
    let Cached {
        keys,
        values,
        kv_dim,
        column,
        head_dim: hd,
    } = cached;
    let heads = range.start / hd..range.end / hd;
    let query = &online.query[range.clone()];
    let out = &mut online.out[range];
    let (max, total) = (&mut online.max[heads.clone()], &mut online.total[heads]);
    for p in positions {
        let scores = dots_in_f64::<N>(query, &keys[p * kv_dim + column..][..hd]);
        let mut weights = [1.0f32; N];
        for j in 0..N {
            let score = scores[j] * scale;
            let mut rescale = 1.0f32;
            if score > max[j] {
                rescale = (max[j] - score).exp();
                max[j] = score;
                scale_half(&mut out[j * hd..][..hd], rescale);
            } else {
                weights[j] = (score - max[j]).exp();
            }
            total[j] = total[j] * rescale + weights[j];
        }
        accumulate_half::<N>(out, &values[p * kv_dim + column..][..hd], weights);
    }
}
