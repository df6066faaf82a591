//! [`block_sums`] on wasm `simd128`: four blocks an iteration, their sums
//! gathered into one vector before they are stored.

use core::arch::wasm32::*;

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

/// `out[b]` = the sum of `block(b)`'s four lanes, for `b < blocks`.
#[inline(always)]
fn sums_by_four(out: &mut [i32], blocks: usize, block: impl Fn(usize) -> v128) {
    let mut b = 0;
    while b + 4 <= blocks {
        let s = [block(b), block(b + 1), block(b + 2), block(b + 3)];
        // A 4×4 transpose-and-add: lane k of the result is block b+k's sum.
        let t0 = i32x4_add(
            i32x4_shuffle::<0, 4, 1, 5>(s[0], s[1]),
            i32x4_shuffle::<2, 6, 3, 7>(s[0], s[1]),
        );
        let t1 = i32x4_add(
            i32x4_shuffle::<0, 4, 1, 5>(s[2], s[3]),
            i32x4_shuffle::<2, 6, 3, 7>(s[2], s[3]),
        );
        let sums = i32x4_add(
            i32x4_shuffle::<0, 1, 4, 5>(t0, t1),
            i32x4_shuffle::<2, 3, 6, 7>(t0, t1),
        );
        // SAFETY: out[b..b+4] is within `out`; v128_store writes unaligned.
        unsafe { v128_store(out.as_mut_ptr().add(b) as *mut v128, sums) };
        b += 4;
    }
    while b < blocks {
        let s = block(b);
        out[b] = i32x4_extract_lane::<0>(s)
            + i32x4_extract_lane::<1>(s)
            + i32x4_extract_lane::<2>(s)
            + i32x4_extract_lane::<3>(s);
        b += 1;
    }
}

/// Block `b`'s products in four i32 lanes.
///
/// # Safety
/// `w` and `x` must each point at `32 · (b + 1)` readable bytes.
#[inline(always)]
unsafe fn block(w: *const i8, x: *const i8, b: usize) -> v128 {
    let at = b * 32;
    let step = |i: usize| {
        let (a, c) = (
            v128_load(w.add(at + i) as *const v128),
            v128_load(x.add(at + i) as *const v128),
        );
        i32x4_extadd_pairwise_i16x8(i16x8_add(
            i16x8_extmul_low_i8x16(a, c),
            i16x8_extmul_high_i8x16(a, c),
        ))
    };
    i32x4_add(step(0), step(16))
}

/// Block `b`'s products with 4-bit weights in four i32 lanes.
///
/// # Safety
/// `w` must point at `16 · (b + 1)` readable bytes and `x` at `32 · (b + 1)`.
#[inline(always)]
unsafe fn nibble_block(w: *const u8, x: *const i8, b: usize) -> v128 {
    let packed = v128_load(w.add(b * 16) as *const v128);
    let low = v128_and(packed, u8x16_splat(0x0f));
    let high = u8x16_shr(packed, 4);
    let products = |a: v128, c: v128| {
        i32x4_extadd_pairwise_i16x8(i16x8_add(
            i16x8_extmul_low_i8x16(a, c),
            i16x8_extmul_high_i8x16(a, c),
        ))
    };
    let (x0, x1) = (
        v128_load(x.add(b * 32) as *const v128),
        v128_load(x.add(b * 32 + 16) as *const v128),
    );
    i32x4_add(products(low, x0), products(high, x1))
}
