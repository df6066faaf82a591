//! The attention loops on wasm `simd128`, four lanes at a time (lengths are
//! multiples of four: head widths).

use core::arch::wasm32::*;

use crate::kernels::half::round_to_half;

/// `Σ a[i]·b[i]`, each product an `f32`, summed in two `f64x2` lanes.
pub fn dot_in_f64(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len()) / 4 * 4;
    let (mut low, mut high) = (f64x2_splat(0.0), f64x2_splat(0.0));
    let mut i = 0;
    while i < n {
        // SAFETY: i + 4 <= n, within both slices; v128_load reads unaligned.
        let products = unsafe {
            f32x4_mul(
                v128_load(a.as_ptr().add(i) as *const v128),
                v128_load(b.as_ptr().add(i) as *const v128),
            )
        };
        low = f64x2_add(low, f64x2_promote_low_f32x4(products));
        high = f64x2_add(
            high,
            f64x2_promote_low_f32x4(i32x4_shuffle::<2, 3, 0, 1>(products, products)),
        );
        i += 4;
    }
    let sum = f64x2_add(low, high);
    let mut total = f64x2_extract_lane::<0>(sum) + f64x2_extract_lane::<1>(sum);
    for (x, y) in a[n..].iter().zip(&b[n..]) {
        total += (x * y) as f64;
    }
    total as f32
}

/// `out[i] = round_to_half(out[i] + v[i]·w)`.
pub fn accumulate_half(out: &mut [f32], v: &[f32], w: f32) {
    let weight = f32x4_splat(w);
    each_four(
        out,
        |o, i| f32x4_add(o, f32x4_mul(load(v, i), weight)),
        |o, i| round_to_half(o + v[i] * w),
    );
}

/// `out[i] = round_to_half(out[i]·r)`.
pub fn scale_half(out: &mut [f32], r: f32) {
    let factor = f32x4_splat(r);
    each_four(out, |o, _| f32x4_mul(o, factor), |o, _| round_to_half(o * r));
}

fn load(values: &[f32], i: usize) -> v128 {
    assert!(i + 4 <= values.len());
    // SAFETY: checked above; v128_load reads unaligned.
    unsafe { v128_load(values.as_ptr().add(i) as *const v128) }
}

/// `out[i..i+4] = round_to_half(step(out[i..i+4], i))`, rounding in place when every lane is in half
/// floats' normal range, else lane by lane with `scalar` (which rounds itself).
#[inline(always)]
fn each_four(out: &mut [f32], step: impl Fn(v128, usize) -> v128, scalar: impl Fn(f32, usize) -> f32) {
    let n = out.len() / 4 * 4;
    let mut i = 0;
    while i < n {
        let value = step(load(out, i), i);
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
            // SAFETY: i + 4 <= n, within `out`; v128_store writes unaligned.
            unsafe { v128_store(out.as_mut_ptr().add(i) as *mut v128, rounded) };
        } else {
            for (k, o) in out.iter_mut().enumerate().skip(i).take(4) {
                *o = scalar(*o, k);
            }
        }
        i += 4;
    }
    for (k, o) in out.iter_mut().enumerate().skip(n) {
        *o = scalar(*o, k);
    }
}
