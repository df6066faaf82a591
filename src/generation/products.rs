//! Matrix products over a batch of inputs, their rows shared among a
//! [`Pool`]'s threads: several products with one input (a block's queries,
//! keys and values) run as one job, so the threads meet once for them.

use std::marker::PhantomData;
use std::ops::Range;

use super::blocks::{Activation, BlockMatrix};
use super::pool::Pool;

/// One matrix's products with a batch of inputs: `out[t · rows + r] = m.row r · xs[t]`.
pub struct Product<'a> {
    m: &'a BlockMatrix,
    xs: &'a [Activation],
    out: *mut f32,
    len: usize,
    _out: PhantomData<&'a mut [f32]>,
}

// SAFETY: threads write `out` only through `Product::rows`, each for rows of
// its own part (the pool's parts do not overlap), and `out` is borrowed
// mutably for the product's life.
unsafe impl Sync for Product<'_> {}

impl<'a> Product<'a> {
    /// The products of `m` with each of `xs`, into `out` (`xs.len() · m.rows` long).
    pub fn new(m: &'a BlockMatrix, xs: &'a [Activation], out: &'a mut [f32]) -> Self {
        assert!(out.len() >= xs.len() * m.rows, "a product's output is too short");
        Product {
            m,
            xs,
            out: out.as_mut_ptr(),
            len: out.len(),
            _out: PhantomData,
        }
    }

    /// Rows `rows` of the products, each weight row read once for all inputs.
    fn rows(&self, rows: Range<usize>) {
        let m = self.m;
        let mut sums = vec![0; m.blocks_per_row() * self.xs.len()];
        for row in rows {
            m.row_dot_each(row, self.xs, &mut sums, |t, product| {
                let at = t * m.rows + row;
                assert!(at < self.len);
                // SAFETY: in bounds (checked), and row `row` is this thread's alone.
                unsafe { *self.out.add(at) = product };
            });
        }
    }
}

/// Runs `products`, their rows (taken one after another) shared among `pool`'s threads.
pub fn run_products(pool: &Pool, products: &[Product<'_>]) {
    let total = products.iter().map(|p| p.m.rows).sum();
    pool.split(total, &|range: Range<usize>| {
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
