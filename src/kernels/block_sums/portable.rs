//! [`block_sums`] in plain loops (which the compiler vectorises).

use super::{FourTokens, WeightRow, SHIFT};

/// `out[b] = Σ w[32b + i] · x[32b + i]` for every block `b` of `out`.
pub fn block_sums(w: &[i8], x: &[i8], out: &mut [i32]) {
    for ((w, x), sum) in w.chunks_exact(32).zip(x.chunks_exact(32)).zip(out.iter_mut()) {
        let (w, x): (&[i8; 32], &[i8; 32]) = (w.try_into().expect("32"), x.try_into().expect("32"));
        let mut total = 0i32;
        for i in 0..32 {
            total += w[i] as i32 * x[i] as i32;
        }
        *sum = total;
    }
}

/// [`block_sums`] of 4-bit weights, sixteen bytes a block (value `j` in byte
/// `j`'s low half, value `j + 16` in its high half).
pub fn nibble_block_sums(w: &[u8], x: &[i8], out: &mut [i32]) {
    for ((w, x), sum) in w.chunks_exact(16).zip(x.chunks_exact(32)).zip(out.iter_mut()) {
        let (w, x): (&[u8; 16], &[i8; 32]) = (w.try_into().expect("16"), x.try_into().expect("32"));
        *sum = dot32(&unpack(w), x);
    }
}

/// [`block_sums`] of bytes standing for their value plus [`SHIFT`]:
/// `Σ w·x − SHIFT · total` for each block's `totals` entry (`Σ x`).
pub fn shifted_block_sums(w: &[u8], x: &[i8], totals: &[i32], out: &mut [i32]) {
    let blocks = w.chunks_exact(32).zip(x.chunks_exact(32)).zip(totals);
    for (((w, x), total), sum) in blocks.zip(out.iter_mut()) {
        let (w, x): (&[u8; 32], &[i8; 32]) = (w.try_into().expect("32"), x.try_into().expect("32"));
        *sum = shifted_dot32(w, x, *total);
    }
}

/// `Σ w[i] · x[i] − SHIFT · total` over a block of shifted bytes.
#[inline(always)]
fn shifted_dot32(w: &[u8; 32], x: &[i8; 32], total: i32) -> i32 {
    let mut sum = 0i32;
    for i in 0..32 {
        sum += w[i] as i32 * x[i] as i32;
    }
    sum - SHIFT * total
}

/// A block's sixteen bytes as its 32 values (0..=15).
#[inline(always)]
fn unpack(w: &[u8; 16]) -> [i8; 32] {
    let mut values = [0i8; 32];
    for j in 0..16 {
        values[j] = (w[j] & 0x0f) as i8;
        values[j + 16] = (w[j] >> 4) as i8;
    }
    values
}

/// `Σ w[i] · x[i]` over a block (a loop the compiler vectorises).
#[inline(always)]
fn dot32(w: &[i8; 32], x: &[i8; 32]) -> i32 {
    let mut total = 0i32;
    for i in 0..32 {
        total += w[i] as i32 * x[i] as i32;
    }
    total
}

/// Row `row`'s products with the four tokens `x`: per block
/// `(scale · d) · Σ q·xq + offset · s`, summed in block order for each token.
pub fn nibble_row_by_four(row: &WeightRow<'_, u8>, x: &FourTokens<'_>) -> [f32; 4] {
    assert!(row.fits(x, 16), "a row and its four tokens have as many blocks");
    row_by_four(row, x, |b| {
        let w = unpack(row.quants[b * 16..][..16].try_into().expect("16"));
        [0, 1, 2, 3].map(|t| dot32(&w, token_block(x, t, b)))
    })
}

/// [`nibble_row_by_four`] of a row of one byte a value.
pub fn byte_row_by_four(row: &WeightRow<'_, i8>, x: &FourTokens<'_>) -> [f32; 4] {
    assert!(row.fits(x, 32), "a row and its four tokens have as many blocks");
    row_by_four(row, x, |b| {
        let w: &[i8; 32] = row.quants[b * 32..][..32].try_into().expect("32");
        [0, 1, 2, 3].map(|t| dot32(w, token_block(x, t, b)))
    })
}

/// [`nibble_row_by_four`] of a row of shifted bytes ([`shifted_block_sums`]).
pub fn shifted_row_by_four(row: &WeightRow<'_, u8>, x: &FourTokens<'_>) -> [f32; 4] {
    assert!(row.fits(x, 32), "a row and its four tokens have as many blocks");
    row_by_four(row, x, |b| {
        let w: &[u8; 32] = row.quants[b * 32..][..32].try_into().expect("32");
        [0, 1, 2, 3].map(|t| shifted_dot32(w, token_block(x, t, b), x.totals[4 * b + t]))
    })
}

/// [`nibble_row_by_four`] of a row of 16-bit values (Q6_K's).
pub fn wide_row_by_four(row: &WeightRow<'_, i16>, x: &FourTokens<'_>) -> [f32; 4] {
    assert!(row.fits(x, 32), "a row and its four tokens have as many blocks");
    row_by_four(row, x, |b| {
        let w = &row.quants[b * 32..][..32];
        [0, 1, 2, 3].map(|t| wide_dot(w, token_block(x, t, b)))
    })
}

/// Token `t`'s block `b`.
#[inline(always)]
fn token_block<'a>(x: &FourTokens<'a>, t: usize, b: usize) -> &'a [i8; 32] {
    x.quants[t][b * 32..][..32].try_into().expect("32")
}

/// The four tokens' products with `row`, from `sums(b)`: block `b`'s integer
/// sums, one a token; scaled and summed in block order, token by token.
#[inline(always)]
fn row_by_four<T>(row: &WeightRow<'_, T>, x: &FourTokens<'_>, sums: impl Fn(usize) -> [i32; 4]) -> [f32; 4] {
    let mut acc = [0.0f32; 4];
    for (b, scale) in row.scales.iter().enumerate() {
        let totals = sums(b);
        for (t, acc) in acc.iter_mut().enumerate() {
            let scaled = (scale * x.scales[4 * b + t]) * totals[t] as f32;
            *acc += match row.offsets {
                Some(offsets) => scaled + offsets[b] * x.sums[4 * b + t],
                None => scaled,
            };
        }
    }
    acc
}

/// [`block_sums`] of 16-bit weights (Q6_K's values times their sub-block scales).
pub fn wide_block_sums(w: &[i16], x: &[i8], out: &mut [i32]) {
    for ((w, x), sum) in w.chunks_exact(32).zip(x.chunks_exact(32)).zip(out.iter_mut()) {
        *sum = wide_dot(w, x);
    }
}

/// `Σ w[i] · x[i]` of 16-bit values and bytes.
#[inline(always)]
fn wide_dot(w: &[i16], x: &[i8]) -> i32 {
    w.iter().zip(x).map(|(w, x)| *w as i32 * *x as i32).sum()
}
