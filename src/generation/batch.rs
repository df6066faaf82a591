//! A prompt's tokens as one batch of inputs to a matrix: the tokens go four
//! at a time through each weight row ([`BlockMatrix::row_dot_by_four`]: each
//! block loaded, and unpacked, once for the four, scaled one token a lane),
//! their blocks' scales and sums interleaved once for every row; the last
//! tokens (fewer than four) go one at a time ([`BlockMatrix::row_dot`]).
//! Each product is bit for bit the one a token alone gets.

use super::blocks::{Activation, BlockMatrix};
use crate::kernels::block_sums::FourTokens;

/// The inputs of a matrix's products, grouped for its rows.
pub struct Batch<'a> {
    xs: &'a [Activation],
    /// Each full group of four tokens' block scales and sums, interleaved (`[4b + t]`).
    groups: Vec<(Vec<f32>, Vec<f32>)>,
}

impl<'a> Batch<'a> {
    /// `xs` as inputs to a matrix's rows, in groups of four.
    pub fn new(xs: &'a [Activation]) -> Self {
        let groups = xs.chunks_exact(4).map(interleave).collect();
        Batch { xs, groups }
    }

    /// Row `row` of `m` times each input, given to `out(t, product)`;
    /// `sums`: room for a row's integer sums.
    pub fn row_products(
        &self,
        m: &BlockMatrix,
        row: usize,
        sums: &mut [i32],
        mut out: impl FnMut(usize, f32),
    ) {
        for (g, (scales, block_sums)) in self.groups.iter().enumerate() {
            let xs = &self.xs[4 * g..4 * g + 4];
            let four = FourTokens {
                quants: [&xs[0].quants, &xs[1].quants, &xs[2].quants, &xs[3].quants],
                scales,
                sums: block_sums,
            };
            for (t, product) in m.row_dot_by_four(row, &four).into_iter().enumerate() {
                out(4 * g + t, product);
            }
        }
        for t in 4 * self.groups.len()..self.xs.len() {
            out(t, m.row_dot(row, &self.xs[t], sums));
        }
    }
}

/// Four tokens' block scales and sums, interleaved (`[4b + t]`).
fn interleave(xs: &[Activation]) -> (Vec<f32>, Vec<f32>) {
    let blocks = xs[0].scales.len();
    let mut scales = Vec::with_capacity(4 * blocks);
    let mut sums = Vec::with_capacity(4 * blocks);
    for b in 0..blocks {
        scales.extend(xs.iter().map(|x| x.scales[b]));
        sums.extend(xs.iter().map(|x| x.sums[b]));
    }
    (scales, sums)
}
