//! The decoder's own weight format, and the quantised activations its
//! products read.
//!
//! A [`BlockMatrix`] row is a run of 32-value blocks, each value an `i8`
//! `q` standing for `scale · q + offset`. Q4_0, Q4_1, Q8_0 and Q4_K blocks
//! fit it exactly (Q4_1's and Q4_K's minimum is the offset), so a row's
//! product with an activation quantised the way llama.cpp quantises it
//! ([`Activation`], its Q8_1 blocks) is llama.cpp's product, up to the order
//! of float additions. Other types are dequantised and quantised again.

use crate::retrieval::kernels::dot_i8;
use crate::retrieval::minilm::half::{f16_to_f32, f32_to_f16};

/// Values per block.
pub const BLOCK: usize = 32;

/// A `rows × cols` weight matrix of 32-value blocks (`cols` a multiple of 32).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockMatrix {
    /// Output rows.
    pub rows: usize,
    /// Input columns.
    pub cols: usize,
    /// One scale per block, row by row.
    pub scales: Vec<f32>,
    /// One offset per block, when any block has one (Q4_1, Q4_K).
    pub offsets: Option<Vec<f32>>,
    /// The values, row by row.
    pub quants: Vec<i8>,
}

impl BlockMatrix {
    /// Blocks per row.
    pub fn blocks_per_row(&self) -> usize {
        self.cols / BLOCK
    }

    /// Row `row` dequantised into `out` (`cols` values).
    pub fn row_into(&self, row: usize, out: &mut [f32]) {
        let per_row = self.blocks_per_row();
        for (b, values) in out.chunks_exact_mut(BLOCK).enumerate() {
            let block = row * per_row + b;
            let scale = self.scales[block];
            let offset = self.offsets.as_ref().map_or(0.0, |o| o[block]);
            let quants = &self.quants[block * BLOCK..][..BLOCK];
            for (value, &q) in values.iter_mut().zip(quants) {
                *value = scale * q as f32 + offset;
            }
        }
    }

    /// `out[r] = row r · x` for every row.
    pub fn apply(&self, x: &Activation, out: &mut [f32]) {
        for (row, y) in out.iter_mut().enumerate().take(self.rows) {
            *y = self.row_dot(row, x);
        }
    }

    /// Row `row`'s product with `x`, block by block as llama.cpp's
    /// `vec_dot_q4_1_q8_1`: `(scale · d) · Σ q·xq + offset · s`.
    pub fn row_dot(&self, row: usize, x: &Activation) -> f32 {
        let per_row = self.blocks_per_row();
        let first = row * per_row;
        let quants = &self.quants[first * BLOCK..(first + per_row) * BLOCK];
        let mut sum = 0.0f32;
        for b in 0..per_row {
            let products = dot_i8(&quants[b * BLOCK..][..BLOCK], &x.quants[b * BLOCK..][..BLOCK]);
            let scaled = (self.scales[first + b] * x.scales[b]) * products as f32;
            sum += match &self.offsets {
                Some(offsets) => scaled + offsets[first + b] * x.sums[b],
                None => scaled,
            };
        }
        sum
    }
}

/// A vector quantised in 32-value blocks as llama.cpp's Q8_1: `d = max|x| / 127`
/// and `q = round(x / d)`, with `d` and `s = d · Σ q` kept as half floats.
#[derive(Debug, Clone, Default)]
pub struct Activation {
    /// The values.
    pub quants: Vec<i8>,
    /// Each block's `d`.
    pub scales: Vec<f32>,
    /// Each block's `d · Σ q`.
    pub sums: Vec<f32>,
}

impl Activation {
    /// `x` (a multiple of 32 long) quantised, reusing this one's room.
    pub fn quantise(&mut self, x: &[f32]) {
        self.quants.resize(x.len(), 0);
        self.scales.clear();
        self.sums.clear();
        for (values, quants) in x.chunks_exact(BLOCK).zip(self.quants.chunks_exact_mut(BLOCK)) {
            let amax = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let d = amax / 127.0;
            let inverse = if d != 0.0 { 1.0 / d } else { 0.0 };
            let mut total = 0i32;
            for (q, v) in quants.iter_mut().zip(values) {
                *q = (v * inverse).round() as i8;
                total += *q as i32;
            }
            self.scales.push(half(d));
            self.sums.push(half(d * total as f32));
        }
    }
}

/// `x` rounded to the nearest half float, as a float.
pub fn half(x: f32) -> f32 {
    f16_to_f32(f32_to_f16(x))
}
