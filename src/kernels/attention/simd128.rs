//! The attention loops on wasm `simd128`, four lanes at a time (lengths are
//! multiples of four: head widths). The `N` queries of one key/value head go
//! through each key and value together: one load of the key or value serves
//! them all, and their sums are independent chains the processor overlaps.

use core::arch::wasm32::*;

use crate::kernels::half::round_to_half;

/// For each of the `N` queries laid end to end in `queries` (each as wide as
/// `key`), `Σ q[i]·key[i]`, each product an `f32`, summed in two `f64x2`
/// lanes (the same order for every `N`).
pub fn dots_in_f64<const N: usize>(queries: &[f32], key: &[f32]) -> [f32; N] {
    let width = key.len();
    assert!(width % 4 == 0 && queries.len() >= N * width);
    let (mut low, mut high) = ([f64x2_splat(0.0); N], [f64x2_splat(0.0); N]);
    let mut i = 0;
    while i < width {
        let k = load(key, i);
        for j in 0..N {
            let products = f32x4_mul(load(queries, j * width + i), k);
            low[j] = f64x2_add(low[j], f64x2_promote_low_f32x4(products));
            high[j] = f64x2_add(
                high[j],
                f64x2_promote_low_f32x4(i32x4_shuffle::<2, 3, 0, 1>(products, products)),
            );
        }
        i += 4;
    }
    core::array::from_fn(|j| {
        let sum = f64x2_add(low[j], high[j]);
        (f64x2_extract_lane::<0>(sum) + f64x2_extract_lane::<1>(sum)) as f32
    })
}

/// For each of the `N` accumulators laid end to end in `outs` (each as wide as
/// `value`): `out[i] = round_to_half(out[i] + value[i]·weights[j])`.
pub fn accumulate_half<const N: usize>(outs: &mut [f32], value: &[f32], weights: [f32; N]) {
    let width = value.len();
    assert!(width % 4 == 0 && outs.len() >= N * width);
    let splats: [v128; N] = core::array::from_fn(|j| f32x4_splat(weights[j]));
    let mut i = 0;
    while i < width {
        let v = load(value, i);
        for (j, weight) in splats.iter().enumerate() {
            let at = j * width + i;
            let sum = f32x4_add(load(outs, at), f32x4_mul(v, *weight));
            store_rounded(outs, at, sum, |k| round_to_half(lane(sum, k)));
        }
        i += 4;
    }
}

/// `out[i] = round_to_half(out[i]·r)`.
pub fn scale_half(out: &mut [f32], r: f32) {
    assert!(out.len() % 4 == 0);
    let factor = f32x4_splat(r);
    let mut i = 0;
    while i < out.len() {
        let product = f32x4_mul(load(out, i), factor);
        store_rounded(out, i, product, |k| round_to_half(lane(product, k)));
        i += 4;
    }
}

/// Lane `k` of `v`.
fn lane(v: v128, k: usize) -> f32 {
    match k {
        0 => f32x4_extract_lane::<0>(v),
        1 => f32x4_extract_lane::<1>(v),
        2 => f32x4_extract_lane::<2>(v),
        _ => f32x4_extract_lane::<3>(v),
    }
}

fn load(values: &[f32], i: usize) -> v128 {
    assert!(i + 4 <= values.len());
    // SAFETY: checked above; v128_load reads unaligned.
    unsafe { v128_load(values.as_ptr().add(i) as *const v128) }
}

/// `out[at..at+4] = round_to_half(value)`: the mantissa rounded in place when
/// every lane is in half floats' normal range, else lane by lane by `scalar`.
#[inline(always)]
fn store_rounded(out: &mut [f32], at: usize, value: v128, scalar: impl Fn(usize) -> f32) {
    assert!(at + 4 <= out.len());
    let magnitude = v128_and(value, u32x4_splat(0x7fff_ffff));
    let normal = v128_and(
        u32x4_ge(magnitude, u32x4_splat(0x3880_0000)),
        u32x4_lt(magnitude, u32x4_splat(0x477f_f000)),
    );
    if u32x4_all_true(normal) {
        let lsb = v128_and(u32x4_shr(value, 13), u32x4_splat(1));
        let rounded = v128_and(
            i32x4_add(i32x4_add(value, u32x4_splat(0x0fff)), lsb),
            u32x4_splat(!0x1fff),
        );
        // SAFETY: checked above; v128_store writes unaligned.
        unsafe { v128_store(out.as_mut_ptr().add(at) as *mut v128, rounded) };
    } else {
        for k in 0..4 {
            out[at + k] = scalar(k);
        }
    }
}
