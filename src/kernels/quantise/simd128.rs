//! [`q8_1_block`] on wasm `simd128`: the block in eight vectors, rounded
//! without a call per value (`f32::round` is a libm call on wasm, and was most
//! of a prompt's quantising time).

use core::arch::wasm32::*;

use super::BLOCK;

/// The first 32 `values` quantised into `quants`: returns the block's `d`
/// (`max|x| / 127`, as a float) and `Σ q`. Panics if either holds fewer than 32.
pub fn q8_1_block(values: &[f32], quants: &mut [i8]) -> (f32, i32) {
    let (values, quants) = (&values[..BLOCK], &mut quants[..BLOCK]);
    // SAFETY: 32 values, eight unaligned loads of four.
    let lanes: [v128; 8] = core::array::from_fn(|i| unsafe { v128_load(values.as_ptr().add(4 * i).cast()) });
    let amax = largest_magnitude(&lanes);
    let d = amax / 127.0;
    let inverse = f32x4_splat(if d != 0.0 { 1.0 / d } else { 0.0 });
    let ints = lanes.map(|v| i32x4_trunc_sat_f32x4(round_half_away(f32x4_mul(v, inverse))));
    let mut total = i32x4_splat(0);
    for (pair, out) in ints.chunks_exact(4).zip(quants.chunks_exact_mut(16)) {
        let low = i16x8_narrow_i32x4(pair[0], pair[1]);
        let high = i16x8_narrow_i32x4(pair[2], pair[3]);
        let bytes = i8x16_narrow_i16x8(low, high);
        // SAFETY: `out` is 16 bytes; an unaligned store.
        unsafe { v128_store(out.as_mut_ptr().cast(), bytes) };
        // The sum of the stored (saturated) values, as the plain loop sums them.
        total = i32x4_add(
            total,
            i32x4_extadd_pairwise_i16x8(i16x8_extadd_pairwise_i8x16(bytes)),
        );
    }
    let lanes = [
        i32x4_extract_lane::<0>(total),
        i32x4_extract_lane::<1>(total),
        i32x4_extract_lane::<2>(total),
        i32x4_extract_lane::<3>(total),
    ];
    (d, lanes.iter().sum())
}

/// `max |x|` over the lanes, a NaN ignored as `f32::max` ignores it
/// (`pmax(m, v)` keeps `m` unless `m < v`).
fn largest_magnitude(lanes: &[v128; 8]) -> f32 {
    let mut m = f32x4_splat(0.0);
    for v in lanes {
        m = f32x4_pmax(m, f32x4_abs(*v));
    }
    let lanes = [
        f32x4_extract_lane::<0>(m),
        f32x4_extract_lane::<1>(m),
        f32x4_extract_lane::<2>(m),
        f32x4_extract_lane::<3>(m),
    ];
    lanes.iter().fold(0.0f32, |m, v| m.max(*v))
}

/// C's `roundf`, lane by lane: the integer nearest, halves away from zero.
/// `x − trunc(x)` is exact below 2^23; a NaN stays a NaN (its conversion gives
/// 0, as `as` gives).
fn round_half_away(x: v128) -> v128 {
    let whole = f32x4_trunc(x);
    let away = f32x4_ge(f32x4_abs(f32x4_sub(x, whole)), f32x4_splat(0.5));
    let one_with_sign = v128_or(f32x4_splat(1.0), v128_and(x, f32x4_splat(-0.0)));
    f32x4_add(whole, v128_and(away, one_with_sign))
}
