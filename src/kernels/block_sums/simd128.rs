//! [`block_sums`] on wasm `simd128`: four blocks an iteration, their sums
//! gathered into one vector before they are stored. Built with relaxed SIMD
//! as well (`lectern_local_relaxed_bg.wasm`), the 4-bit and shifted 5-bit
//! products use its 8-bit dot product ([`small_products`]).

use core::arch::wasm32::*;

use super::{FourTokens, WeightRow, SHIFT};

/// `out[b] = Σ w[32b + i] · x[32b + i]` for every block `b` of `out`; values
/// lie in -127..=127 (two products fit an i16 lane).
pub fn block_sums(w: &[i8], x: &[i8], out: &mut [i32]) {
    let blocks = out.len().min(w.len() / 32).min(x.len() / 32);
    let (pw, px) = (w.as_ptr(), x.as_ptr());
    // SAFETY: `sums_by_four` calls it for blocks below `blocks`, within both slices.
    sums_by_four(out, blocks, |b| unsafe { block(pw, px, b) });
}

/// [`block_sums`] of 4-bit weights, sixteen bytes a block (value `j` in byte
/// `j`'s low half, value `j + 16` in its high half).
pub fn nibble_block_sums(w: &[u8], x: &[i8], out: &mut [i32]) {
    let blocks = out.len().min(w.len() / 16).min(x.len() / 32);
    let (pw, px) = (w.as_ptr(), x.as_ptr());
    // SAFETY: `sums_by_four` calls it for blocks below `blocks`, within both slices.
    sums_by_four(out, blocks, |b| unsafe { nibble_block(pw, px, b) });
}

/// [`block_sums`] of bytes standing for their value plus [`SHIFT`] (0..=31):
/// `Σ w·x − SHIFT · total` for each block's `totals` entry (`Σ x`).
pub fn shifted_block_sums(w: &[u8], x: &[i8], totals: &[i32], out: &mut [i32]) {
    let blocks = out.len().min(w.len() / 32).min(x.len() / 32).min(totals.len());
    let (pw, px) = (w.as_ptr(), x.as_ptr());
    // SAFETY: `sums_by_four` calls it for blocks below `blocks`, within both slices.
    sums_by_four(out, blocks, |b| unsafe { small_block(load_pair(pw, b), px, b) });
    for (sum, total) in out[..blocks].iter_mut().zip(totals) {
        *sum -= SHIFT * total;
    }
}

/// [`block_sums`] of 16-bit weights (Q6_K's values times their sub-block
/// scales, within ±4096, so a pair of products fits an i32 lane).
pub fn wide_block_sums(w: &[i16], x: &[i8], out: &mut [i32]) {
    let blocks = out.len().min(w.len() / 32).min(x.len() / 32);
    let (pw, px) = (w.as_ptr(), x.as_ptr());
    // SAFETY: `sums_by_four` calls it for blocks below `blocks`, within both slices.
    sums_by_four(out, blocks, |b| unsafe { wide_block(pw, px, b) });
}

/// Row `row`'s products with the four tokens `x`: per block
/// `(scale · d) · Σ q·xq + offset · s`, one token a lane, summed in block
/// order (the portable kernel's float steps, lane by lane).
pub fn nibble_row_by_four(row: &WeightRow<'_, u8>, x: &FourTokens<'_>) -> [f32; 4] {
    assert!(row.fits(x, 16), "a row and its four tokens have as many blocks");
    let pw = row.quants.as_ptr();
    // SAFETY: `row_by_four` asks for blocks of the row, which fit (asserted).
    row_by_four(row, x, |b, px| unsafe {
        let (low, high) = unpack(pw, b);
        transpose_add(px.map(|p| small_block((low, high), p, b)))
    })
}

/// [`nibble_row_by_four`] of a row of shifted bytes ([`shifted_block_sums`]):
/// each block's two vectors loaded once for the four tokens, and the four
/// tokens' `SHIFT · Σ x` taken off together.
pub fn shifted_row_by_four(row: &WeightRow<'_, u8>, x: &FourTokens<'_>) -> [f32; 4] {
    assert!(row.fits(x, 32), "a row and its four tokens have as many blocks");
    let (pw, pt) = (row.quants.as_ptr(), x.totals.as_ptr());
    // SAFETY: `row_by_four` asks for blocks of the row, which fit, and 4b..4b+4 of the totals (asserted).
    row_by_four(row, x, |b, px| unsafe {
        let w = load_pair(pw, b);
        let sums = transpose_add(px.map(|p| small_block(w, p, b)));
        let totals = v128_load(pt.add(4 * b) as *const v128);
        i32x4_sub(sums, i32x4_mul(totals, i32x4_splat(SHIFT)))
    })
}

/// Block `b`'s 32 bytes as two vectors.
///
/// # Safety
/// `w` must point at `32 · (b + 1)` readable bytes.
#[inline(always)]
unsafe fn load_pair(w: *const u8, b: usize) -> (v128, v128) {
    (
        v128_load(w.add(b * 32) as *const v128),
        v128_load(w.add(b * 32 + 16) as *const v128),
    )
}

/// [`nibble_row_by_four`] of a row of one byte a value: each block's two
/// vectors loaded once for the four tokens.
pub fn byte_row_by_four(row: &WeightRow<'_, i8>, x: &FourTokens<'_>) -> [f32; 4] {
    assert!(row.fits(x, 32), "a row and its four tokens have as many blocks");
    let pw = row.quants.as_ptr();
    // SAFETY: `row_by_four` asks for blocks of the row, which fit (asserted).
    row_by_four(row, x, |b, px| unsafe {
        let w = prepare(load_pair(pw as *const u8, b));
        transpose_add(px.map(|p| loaded_block(w, p, b)))
    })
}

/// [`nibble_row_by_four`] of a row of 16-bit values (Q6_K's): each block's
/// four vectors loaded once for the four tokens.
pub fn wide_row_by_four(row: &WeightRow<'_, i16>, x: &FourTokens<'_>) -> [f32; 4] {
    assert!(row.fits(x, 32), "a row and its four tokens have as many blocks");
    let pw = row.quants.as_ptr();
    // SAFETY: `row_by_four` asks for blocks of the row, which fit (asserted).
    row_by_four(row, x, |b, px| unsafe {
        let w = [0, 1, 2, 3].map(|i| v128_load(pw.add(b * 32 + 8 * i) as *const v128));
        transpose_add(px.map(|p| wide_loaded_block(w, p, b)))
    })
}

/// The four tokens' products with `row`, from `sums(b, tokens)`: block `b`'s
/// integer sums, one token a lane; scaled and summed in block order, lane by
/// lane. The caller has checked that the row and tokens hold the row's blocks.
#[inline(always)]
fn row_by_four<T>(
    row: &WeightRow<'_, T>,
    x: &FourTokens<'_>,
    sums: impl Fn(usize, [*const i8; 4]) -> v128,
) -> [f32; 4] {
    let px = x.quants.map(|q| q.as_ptr());
    let mut acc = f32x4_splat(0.0);
    for (b, scale) in row.scales.iter().enumerate() {
        // SAFETY: 4b..4b+4 lies within the interleaved scales and sums (the caller's check).
        unsafe {
            let d = v128_load(x.scales.as_ptr().add(4 * b) as *const v128);
            let scaled = f32x4_mul(
                f32x4_mul(f32x4_splat(*scale), d),
                f32x4_convert_i32x4(sums(b, px)),
            );
            let term = match row.offsets {
                Some(offsets) => {
                    let s = v128_load(x.sums.as_ptr().add(4 * b) as *const v128);
                    f32x4_add(scaled, f32x4_mul(f32x4_splat(*offsets.get_unchecked(b)), s))
                }
                None => scaled,
            };
            acc = f32x4_add(acc, term);
        }
    }
    [
        f32x4_extract_lane::<0>(acc),
        f32x4_extract_lane::<1>(acc),
        f32x4_extract_lane::<2>(acc),
        f32x4_extract_lane::<3>(acc),
    ]
}

/// The low and high nibbles of block `b`'s sixteen bytes.
///
/// # Safety
/// `w` must point at `16 · (b + 1)` readable bytes.
#[inline(always)]
unsafe fn unpack(w: *const u8, b: usize) -> (v128, v128) {
    let packed = v128_load(w.add(b * 16) as *const v128);
    (v128_and(packed, u8x16_splat(0x0f)), u8x16_shr(packed, 4))
}

/// A block of small unsigned values (0..=31: unpacked nibbles, or shifted
/// bytes) times block `b` of `x`, in four i32 lanes.
///
/// # Safety
/// `x` must point at `32 · (b + 1)` readable bytes.
#[inline(always)]
unsafe fn small_block((low, high): (v128, v128), x: *const i8, b: usize) -> v128 {
    let (x0, x1) = (
        v128_load(x.add(b * 32) as *const v128),
        v128_load(x.add(b * 32 + 16) as *const v128),
    );
    small_products(low, x0, high, x1)
}

/// The 32 products of small unsigned values (0..=31) `low` and `high` with
/// the bytes `x0` and `x1`, summed into four i32 lanes: with relaxed SIMD,
/// two dot product instructions (the values are its 7-bit operand, so every
/// engine gives the exact sums: no pair of products nears the i16 range it
/// may saturate); on plain `simd128`, widening multiplies (four products of
/// 0..=31 by -128..=127 fit an i16 lane). The lanes differ between the two;
/// their sum does not.
#[inline(always)]
fn small_products(low: v128, x0: v128, high: v128, x1: v128) -> v128 {
    #[cfg(target_feature = "relaxed-simd")]
    {
        i32x4_relaxed_dot_i8x16_i7x16_add(
            x1,
            high,
            i32x4_relaxed_dot_i8x16_i7x16_add(x0, low, i32x4_splat(0)),
        )
    }
    #[cfg(not(target_feature = "relaxed-simd"))]
    {
        let sum = i16x8_add(
            i16x8_add(i16x8_extmul_low_i8x16(low, x0), i16x8_extmul_high_i8x16(low, x0)),
            i16x8_add(
                i16x8_extmul_low_i8x16(high, x1),
                i16x8_extmul_high_i8x16(high, x1),
            ),
        );
        i32x4_extadd_pairwise_i16x8(sum)
    }
}

/// Lane `k` of the result: the sum of `s[k]`'s four lanes (a 4×4 transpose-and-add).
#[inline(always)]
fn transpose_add(s: [v128; 4]) -> v128 {
    let t0 = i32x4_add(
        i32x4_shuffle::<0, 4, 1, 5>(s[0], s[1]),
        i32x4_shuffle::<2, 6, 3, 7>(s[0], s[1]),
    );
    let t1 = i32x4_add(
        i32x4_shuffle::<0, 4, 1, 5>(s[2], s[3]),
        i32x4_shuffle::<2, 6, 3, 7>(s[2], s[3]),
    );
    i32x4_add(
        i32x4_shuffle::<0, 1, 4, 5>(t0, t1),
        i32x4_shuffle::<2, 3, 6, 7>(t0, t1),
    )
}

/// The sum of four i32 lanes.
#[inline(always)]
fn lane_sum(s: v128) -> i32 {
    i32x4_extract_lane::<0>(s)
        + i32x4_extract_lane::<1>(s)
        + i32x4_extract_lane::<2>(s)
        + i32x4_extract_lane::<3>(s)
}

/// `out[b]` = the sum of `block(b)`'s four lanes, for `b < blocks`.
#[inline(always)]
fn sums_by_four(out: &mut [i32], blocks: usize, block: impl Fn(usize) -> v128) {
    let mut b = 0;
    while b + 4 <= blocks {
        let sums = transpose_add([block(b), block(b + 1), block(b + 2), block(b + 3)]);
        // SAFETY: out[b..b+4] is within `out`; v128_store writes unaligned.
        unsafe { v128_store(out.as_mut_ptr().add(b) as *mut v128, sums) };
        b += 4;
    }
    while b < blocks {
        out[b] = lane_sum(block(b));
        b += 1;
    }
}

/// Block `b`'s products in four i32 lanes.
///
/// # Safety
/// `w` and `x` must each point at `32 · (b + 1)` readable bytes.
#[inline(always)]
unsafe fn block(w: *const i8, x: *const i8, b: usize) -> v128 {
    loaded_block(prepare(load_pair(w as *const u8, b)), x, b)
}

/// A block's two vectors of signed bytes as its products read them: with
/// relaxed SIMD, each value's magnitude (0..=127, the dot product's 7-bit
/// operand) and its sign as a mask (all ones where negative), which
/// [`signed_products`] moves onto the activation (as x86's `psignb` lets
/// llama.cpp do); on plain `simd128`, the bytes as they are.
#[derive(Clone, Copy)]
struct SignedBlock {
    #[cfg(target_feature = "relaxed-simd")]
    magnitudes: (v128, v128),
    #[cfg(target_feature = "relaxed-simd")]
    negative: (v128, v128),
    #[cfg(not(target_feature = "relaxed-simd"))]
    values: (v128, v128),
}

/// [`SignedBlock`] of two loaded vectors (values in -127..=127).
#[inline(always)]
fn prepare((w0, w1): (v128, v128)) -> SignedBlock {
    #[cfg(target_feature = "relaxed-simd")]
    {
        let zero = i8x16_splat(0);
        SignedBlock {
            magnitudes: (i8x16_abs(w0), i8x16_abs(w1)),
            negative: (i8x16_lt(w0, zero), i8x16_lt(w1, zero)),
        }
    }
    #[cfg(not(target_feature = "relaxed-simd"))]
    {
        SignedBlock { values: (w0, w1) }
    }
}

/// A prepared block times block `b` of `x`, in four i32 lanes.
///
/// # Safety
/// `x` must point at `32 · (b + 1)` readable bytes.
#[inline(always)]
unsafe fn loaded_block(w: SignedBlock, x: *const i8, b: usize) -> v128 {
    let (x0, x1) = (
        v128_load(x.add(b * 32) as *const v128),
        v128_load(x.add(b * 32 + 16) as *const v128),
    );
    signed_products(w, x0, x1)
}

/// The 32 products of a prepared block with the bytes `x0` and `x1` (values
/// in -127..=127), summed into four i32 lanes: with relaxed SIMD, each `x`
/// takes its weight's sign (`(x ^ m) − m`, still within -127..=127) and is
/// multiplied by the weight's magnitude in two dot product instructions
/// (exact on every engine: the magnitudes are 7-bit); on plain `simd128`,
/// widening multiplies (two products fit an i16 lane). The lanes differ
/// between the two; their sum does not.
#[inline(always)]
fn signed_products(w: SignedBlock, x0: v128, x1: v128) -> v128 {
    #[cfg(target_feature = "relaxed-simd")]
    {
        let signed = |x: v128, m: v128| i8x16_sub(v128_xor(x, m), m);
        let (a0, a1) = (signed(x0, w.negative.0), signed(x1, w.negative.1));
        i32x4_relaxed_dot_i8x16_i7x16_add(
            a1,
            w.magnitudes.1,
            i32x4_relaxed_dot_i8x16_i7x16_add(a0, w.magnitudes.0, i32x4_splat(0)),
        )
    }
    #[cfg(not(target_feature = "relaxed-simd"))]
    {
        let step = |a: v128, c: v128| {
            i32x4_extadd_pairwise_i16x8(i16x8_add(
                i16x8_extmul_low_i8x16(a, c),
                i16x8_extmul_high_i8x16(a, c),
            ))
        };
        i32x4_add(step(w.values.0, x0), step(w.values.1, x1))
    }
}

/// Block `b`'s products with 4-bit weights in four i32 lanes.
///
/// # Safety
/// `w` must point at `16 · (b + 1)` readable bytes and `x` at `32 · (b + 1)`.
#[inline(always)]
unsafe fn nibble_block(w: *const u8, x: *const i8, b: usize) -> v128 {
    small_block(unpack(w, b), x, b)
}

/// Block `b`'s products with 16-bit weights in four i32 lanes.
///
/// # Safety
/// `w` and `x` must each point at `32 · (b + 1)` readable values.
#[inline(always)]
unsafe fn wide_block(w: *const i16, x: *const i8, b: usize) -> v128 {
    let weights = [0, 1, 2, 3].map(|i| v128_load(w.add(b * 32 + 8 * i) as *const v128));
    wide_loaded_block(weights, x, b)
}

/// A block's four loaded vectors of 16-bit values times block `b` of `x`,
/// in four i32 lanes.
///
/// # Safety
/// `x` must point at `32 · (b + 1)` readable bytes.
#[inline(always)]
unsafe fn wide_loaded_block(w: [v128; 4], x: *const i8, b: usize) -> v128 {
    let (x0, x1) = (
        v128_load(x.add(b * 32) as *const v128),
        v128_load(x.add(b * 32 + 16) as *const v128),
    );
    i32x4_add(
        i32x4_add(
            i32x4_dot_i16x8(w[0], i16x8_extend_low_i8x16(x0)),
            i32x4_dot_i16x8(w[1], i16x8_extend_high_i8x16(x0)),
        ),
        i32x4_add(
            i32x4_dot_i16x8(w[2], i16x8_extend_low_i8x16(x1)),
            i32x4_dot_i16x8(w[3], i16x8_extend_high_i8x16(x1)),
        ),
    )
}
