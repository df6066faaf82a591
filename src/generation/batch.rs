//! A prompt's tokens as one batch of inputs to a matrix: the tokens go four
//! at a time through each weight row ([`BlockMatrix::row_dot_by_four`]: each
//! block loaded, and unpacked, once for the four, scaled one token a lane),
//! their blocks' scales, sums and totals interleaved once for every row; the last
//! tokens (fewer than four) go one at a time ([`BlockMatrix::row_dot`]).
//! Each product is bit for bit the one a token alone gets.

use super::blocks::{Activation, BlockMatrix};
use crate::kernels::block_sums::FourTokens;

/// The inputs of a matrix's products, grouped for its rows.
pub struct Batch<'a> {
    xs: &'a [Activation],
    /// Each full group of four tokens' blocks, interleaved.
    groups: Vec<Interleaved>,
}

/// Four tokens' block scales, sums and totals, interleaved (`[4b + t]`).
struct Interleaved {
    scales: Vec<f32>,
    sums: Vec<f32>,
    totals: Vec<i32>,
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
        for (g, group) in self.groups.iter().enumerate() {
            let xs = &self.xs[4 * g..4 * g + 4];
            let four = FourTokens {
                quants: [&xs[0].quants, &xs[1].quants, &xs[2].quants, &xs[3].quants],
                scales: &group.scales,
                sums: &group.sums,
                totals: &group.totals,
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

/// Four tokens' blocks, interleaved.
fn interleave(xs: &[Activation]) -> Interleaved {
    Interleaved {
        scales: by_block(xs, |x| &x.scales),
        sums: by_block(xs, |x| &x.sums),
        totals: by_block(xs, |x| &x.totals),
    }
}

/// The tokens' `field` values, block by block (`[4b + t]`).
fn by_block<T: Copy>(xs: &[Activation], field: impl Fn(&Activation) -> &Vec<T>) -> Vec<T> {
    let blocks = field(&xs[0]).len();
    let field = &field;
    (0..blocks)
        .flat_map(|b| xs.iter().map(move |x| field(x)[b]))
        .collect()
}
