//! Matrix products over a batch of inputs, their rows shared among a
//! [`Pool`]'s threads: several products with one input (a block's queries,
//! keys and values) run as one job, so the threads meet once for them.

use std::ops::Range;

use super::batch::Batch;
use super::blocks::{Activation, BlockMatrix};
use super::disjoint::DisjointSlice;
use super::pool::{Pool, MIN_PART_ROWS};

/// One matrix's products with a batch of inputs: `out[t · rows + r] = m.row r · xs[t]`.
pub struct Product<'a> {
    m: &'a BlockMatrix,
    xs: Batch<'a>,
    out: DisjointSlice<'a>,
}

impl<'a> Product<'a> {
    /// The products of `m` with each of `xs`, into `out` (`xs.len() · m.rows` long).
    pub fn new(m: &'a BlockMatrix, xs: &'a [Activation], out: &'a mut [f32]) -> Self {
        assert!(out.len() >= xs.len() * m.rows, "a product's output is too short");
        Product {
            m,
            xs: Batch::new(xs),
            out: DisjointSlice::new(out),
        }
    }

    /// Rows `rows` of the products, each weight row read for all inputs ([`Batch`]).
    fn rows(&self, rows: Range<usize>) {
        let m = self.m;
        let mut sums = vec![0; m.blocks_per_row()];
        for row in rows {
            self.xs.row_products(m, row, &mut sums, |t, product| {
                let at = t * m.rows + row;
                // SAFETY: row `row` (of every input) is this thread's alone:
                // the pool's parts do not overlap.
                unsafe { self.out.set(at, product) };
            });
        }
    }
}

/// Runs `products`, their rows (taken one after another) shared among `pool`'s threads.
pub fn run_products(pool: &Pool, products: &[Product<'_>]) {
    let total = products.iter().map(|p| p.m.rows).sum();
    pool.split(total, MIN_PART_ROWS, &|range: Range<usize>| {
        let mut first = 0;
        for product in products {
            let start = range.start.max(first);
            let end = range.end.min(first + product.m.rows);
            if start < end {
                product.rows(start - first..end - first);
            }
            first += product.m.rows;
        }
    });
}
