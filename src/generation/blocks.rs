//! The decoder's own weight format, and the quantised activations its
//! products read.
//!
//! A [`BlockMatrix`] row is a run of 32-value blocks, each value an integer
//! `q` standing for `scale · q + offset`: a byte each, two to a byte for
//! 4-bit types (half the memory a token's pass reads), a byte each plus 16
//! for Q5_0 (unsigned, for the relaxed-SIMD dot product), or an `i16` for
//! Q6_K (its 6-bit values times their 16-value scales). Q4_0, Q4_1, Q5_0, Q8_0,
//! Q4_K and Q6_K blocks fit it exactly (Q4_1's and Q4_K's minimum is the
//! offset), so a row's product with an activation quantised the way llama.cpp
//! quantises it for that type ([`Activation`]: Q8_1 blocks, or Q8_K's
//! 256-value ones for K-quants) is llama.cpp's product, up to the order of
//! float additions. Other types are dequantised and quantised again.

use crate::kernels::half::round_to_half;
use crate::kernels::quantise::q8_1_block;

use crate::kernels::block_sums::{
    block_sums, byte_row_by_four, nibble_block_sums, nibble_row_by_four, shifted_block_sums,
    shifted_row_by_four, wide_block_sums, wide_row_by_four, FourTokens, WeightRow,
};

/// Values per block.
pub const BLOCK: usize = 32;

/// Values per K-quant super-block (and per Q8_K activation block).
pub const SUPER: usize = 256;

/// How a matrix's input is quantised (as llama.cpp pairs activations with weight types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// 32-value blocks with a half-float scale (Q8_0 / Q8_1).
    Q8_1,
    /// 256-value blocks with a float scale (Q8_K), for K-quant weights.
    Q8K,
}

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
    pub quants: Quants,
    /// The quantisation its products read.
    pub input: Input,
}

/// A matrix's values.
#[derive(Debug, Clone, PartialEq)]
pub enum Quants {
    /// One `i8` a value.
    Bytes(Vec<i8>),
    /// Two 4-bit values (0..=15) a byte: byte `j` of a block holds value `j`
    /// in its low half and value `j + 16` in its high half (ggml's Q4 order).
    Nibbles(Vec<u8>),
    /// One `i16` a value.
    Wide(Vec<i16>),
    /// Q5_0's values plus [`SHIFT`] (0..=31), one byte each: unsigned, so the
    /// relaxed-SIMD dot product takes them as its 7-bit operand; a block's
    /// product is `Σ w·x − SHIFT · Σ x`.
    Shifted(Vec<u8>),
}

/// What [`Quants::Shifted`] values have added to them.
pub use crate::kernels::block_sums::SHIFT;

impl Quants {
    /// Block `block`'s 32 values, into `out`.
    fn block_into(&self, block: usize, out: &mut [i32; BLOCK]) {
        let values = block * BLOCK..(block + 1) * BLOCK;
        match self {
            Quants::Bytes(q) => out.iter_mut().zip(&q[values]).for_each(|(o, q)| *o = *q as i32),
            Quants::Wide(q) => out.iter_mut().zip(&q[values]).for_each(|(o, q)| *o = *q as i32),
            Quants::Shifted(q) => out
                .iter_mut()
                .zip(&q[values])
                .for_each(|(o, q)| *o = *q as i32 - SHIFT),
            Quants::Nibbles(bytes) => {
                for (j, b) in bytes[block * BLOCK / 2..][..BLOCK / 2].iter().enumerate() {
                    out[j] = (b & 0x0f) as i32;
                    out[j + BLOCK / 2] = (b >> 4) as i32;
                }
            }
        }
    }
}

impl BlockMatrix {
    /// Blocks per row.
    pub fn blocks_per_row(&self) -> usize {
        self.cols / BLOCK
    }

    /// Row `row` dequantised into `out` (`cols` values).
    pub fn row_into(&self, row: usize, out: &mut [f32]) {
        let per_row = self.blocks_per_row();
        let mut quants = [0i32; BLOCK];
        for (b, values) in out.chunks_exact_mut(BLOCK).enumerate() {
            let block = row * per_row + b;
            let scale = self.scales[block];
            let offset = self.offsets.as_ref().map_or(0.0, |o| o[block]);
            self.quants.block_into(block, &mut quants);
            for (value, &q) in values.iter_mut().zip(&quants) {
                *value = scale * q as f32 + offset;
            }
        }
    }

    /// `out[r] = row r · x` for every row.
    pub fn apply(&self, x: &Activation, out: &mut [f32]) {
        let mut sums = vec![0; self.blocks_per_row()];
        for (row, y) in out.iter_mut().enumerate().take(self.rows) {
            *y = self.row_dot(row, x, &mut sums);
        }
    }

    /// Row `row`'s product with `x`, block by block as llama.cpp's
    /// `vec_dot_q4_1_q8_1`: `(scale · d) · Σ q·xq + offset · s`, summed in
    /// block order (`sums`: room for a row's integer sums).
    pub fn row_dot(&self, row: usize, x: &Activation, sums: &mut [i32]) -> f32 {
        match &self.quants {
            Quants::Bytes(q) => block_sums(self.row_values(row, q, 1), &x.quants, sums),
            Quants::Wide(q) => wide_block_sums(self.row_values(row, q, 1), &x.quants, sums),
            Quants::Nibbles(q) => nibble_block_sums(self.row_values(row, q, 2), &x.quants, sums),
            Quants::Shifted(q) => shifted_block_sums(self.row_values(row, q, 1), &x.quants, &x.totals, sums),
        }
        self.scaled_sum(row, x, sums)
    }

    /// Row `row`'s products with the four tokens `x`, each as [`Self::row_dot`]
    /// gives it, bit for bit (each block loaded once for the four).
    pub fn row_dot_by_four(&self, row: usize, x: &FourTokens<'_>) -> [f32; 4] {
        match &self.quants {
            Quants::Nibbles(q) => nibble_row_by_four(&self.weight_row(row, q, 2), x),
            Quants::Bytes(q) => byte_row_by_four(&self.weight_row(row, q, 1), x),
            Quants::Wide(q) => wide_row_by_four(&self.weight_row(row, q, 1), x),
            Quants::Shifted(q) => shifted_row_by_four(&self.weight_row(row, q, 1), x),
        }
    }

    /// Row `row` of the values `q` (`per_element` values an element of `q`),
    /// with its blocks' scales and offsets.
    fn weight_row<'a, T>(&'a self, row: usize, q: &'a [T], per_element: usize) -> WeightRow<'a, T> {
        let per_row = self.blocks_per_row();
        let blocks = row * per_row..(row + 1) * per_row;
        WeightRow {
            quants: self.row_values(row, q, per_element),
            scales: &self.scales[blocks.clone()],
            offsets: self.offsets.as_ref().map(|o| &o[blocks]),
        }
    }

    /// Row `row`'s part of the values `q` (`per_element` values an element of `q`).
    fn row_values<'a, T>(&self, row: usize, q: &'a [T], per_element: usize) -> &'a [T] {
        &q[row * self.cols / per_element..(row + 1) * self.cols / per_element]
    }

    /// Row `row`'s product with `x` from its blocks' integer `sums`: the scales
    /// and offsets applied, summed in block order.
    fn scaled_sum(&self, row: usize, x: &Activation, sums: &mut [i32]) -> f32 {
        let per_row = self.blocks_per_row();
        let first = row * per_row;
        // Each block's term first (element-wise: vectorised), then their sum in block order.
        let scales = &self.scales[first..first + per_row];
        let terms = &mut sums[..per_row];
        match &self.offsets {
            Some(offsets) => {
                let offsets = &offsets[first..first + per_row];
                for (b, term) in terms.iter_mut().enumerate() {
                    let scaled = (scales[b] * x.scales[b]) * *term as f32;
                    *term = (scaled + offsets[b] * x.sums[b]).to_bits() as i32;
                }
            }
            None => {
                for (b, term) in terms.iter_mut().enumerate() {
                    *term = ((scales[b] * x.scales[b]) * *term as f32).to_bits() as i32;
                }
            }
        }
        let mut sum = 0.0f32;
        for term in terms.iter() {
            sum += f32::from_bits(*term as u32);
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
    /// Each block's `Σ q`, exactly (what a [`Quants::Shifted`] product takes off).
    pub totals: Vec<i32>,
}

impl Activation {
    /// `x` (a multiple of 32 long) quantised, reusing this one's room.
    pub fn quantise(&mut self, x: &[f32]) {
        self.quants.resize(x.len(), 0);
        self.clear_blocks();
        for (values, quants) in x.chunks_exact(BLOCK).zip(self.quants.chunks_exact_mut(BLOCK)) {
            let (d, total) = q8_1_block(values, quants);
            self.scales.push(round_to_half(d));
            self.sums.push(round_to_half(d * total as f32));
            self.totals.push(total);
        }
    }

    /// `x` (a multiple of 256 long) quantised as llama.cpp's Q8_K: per 256
    /// values, `q = min(127, round(−127 · x / m))` for `m` the value of
    /// largest magnitude and `d = −m / 127` (a float); each 32-value block
    /// keeps `d` and `d · Σ q`.
    pub fn quantise_k(&mut self, x: &[f32]) {
        self.quants.resize(x.len(), 0);
        self.clear_blocks();
        for (values, quants) in x.chunks_exact(SUPER).zip(self.quants.chunks_exact_mut(SUPER)) {
            let (mut max, mut amax) = (0.0f32, 0.0f32);
            for v in values {
                if v.abs() > amax {
                    (amax, max) = (v.abs(), *v);
                }
            }
            let iscale = if amax == 0.0 { 0.0 } else { -127.0 / max };
            for (q, v) in quants.iter_mut().zip(values) {
                *q = ((iscale * v).round_ties_even() as i32).min(127) as i8;
            }
            let d = if amax == 0.0 { 0.0 } else { 1.0 / iscale };
            for block in quants.chunks_exact(BLOCK) {
                let total: i32 = block.iter().map(|q| *q as i32).sum();
                self.scales.push(d);
                self.sums.push(d * total as f32);
                self.totals.push(total);
            }
        }
    }

    /// Empties the per-block records, keeping their room.
    fn clear_blocks(&mut self) {
        self.scales.clear();
        self.sums.clear();
        self.totals.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::{Activation, SUPER};

    /// Q8_K as llama.cpp's quantize_row_q8_K_ref: the scale from the value of
    /// largest magnitude with its sign (−127 / m), ties to even, and 127 at most.
    #[test]
    fn q8_k_quantises_by_the_signed_largest_value_with_ties_to_even() {
        let mut x = vec![0.0f32; SUPER];
        x[0] = -127.0; // m: the scale is 1, values keep their sign
        x[1] = 2.5;
        x[2] = 3.5;
        x[3] = -0.5;
        x[40] = 126.6;
        let mut act = Activation::default();
        act.quantise_k(&x);
        assert_eq!(&act.quants[..4], &[-127, 2, 4, 0]);
        assert_eq!(act.quants[40], 127);
        assert_eq!(act.scales, vec![1.0; SUPER / 32]);
        assert_eq!(act.sums[0], (-127 + 2 + 4) as f32);
        x[0] = 127.0; // a positive m flips every sign, and the scale's
        act.quantise_k(&x);
        assert_eq!(&act.quants[..4], &[-127, -2, -4, 0]);
        assert_eq!(act.scales[0], -1.0);
        assert_eq!(act.quants[40], -127);
    }
}
