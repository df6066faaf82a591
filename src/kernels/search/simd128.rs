//! The kernels on wasm `simd128`: four `f32` or sixteen `i8` lanes an
//! instruction, loops unrolled by hand so a size-optimised build keeps them.

use core::arch::wasm32::*;

/// Dot product of two equally long vectors, sixteen floats an iteration.
#[inline(always)]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    // SAFETY (every load below): i + 4 <= n, within both slices; v128_load reads unaligned.
    let load = |p: *const f32, i: usize| unsafe { v128_load(p.add(i) as *const v128) };
    let madd = |acc: v128, i: usize| f32x4_add(acc, f32x4_mul(load(pa, i), load(pb, i)));
    let zero = f32x4_splat(0.0);
    let (mut acc0, mut acc1, mut acc2, mut acc3) = (zero, zero, zero, zero);
    let mut i = 0;
    // Sixteen floats an iteration in four independent sums, unrolled by hand
    // so that a size-optimised build keeps it.
    while i + 16 <= n {
        acc0 = madd(acc0, i);
        acc1 = madd(acc1, i + 4);
        acc2 = madd(acc2, i + 8);
        acc3 = madd(acc3, i + 12);
        i += 16;
    }
    while i + 4 <= n {
        acc0 = madd(acc0, i);
        i += 4;
    }
    let acc = f32x4_add(f32x4_add(acc0, acc1), f32x4_add(acc2, acc3));
    let mut sum = f32x4_extract_lane::<0>(acc)
        + f32x4_extract_lane::<1>(acc)
        + f32x4_extract_lane::<2>(acc)
        + f32x4_extract_lane::<3>(acc);
    while i < n {
        sum += a[i] * b[i];
        i += 1;
    }
    sum
}

/// Integer dot product of int8 rows whose length is a multiple of 16 and
/// whose values lie in -127..=127, thirty-two values an iteration.
#[inline(always)]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let n = a.len().min(b.len()) / 16 * 16;
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let mut acc0 = i32x4_splat(0);
    let mut acc1 = i32x4_splat(0);
    let mut i = 0;
    // SAFETY (every step below): i + 16 <= n, within both slices.
    while i + 32 <= n {
        unsafe {
            acc0 = dot_i8_step(acc0, pa.add(i), pb.add(i));
            acc1 = dot_i8_step(acc1, pa.add(i + 16), pb.add(i + 16));
        }
        i += 32;
    }
    if i < n {
        acc0 = unsafe { dot_i8_step(acc0, pa.add(i), pb.add(i)) };
    }
    let acc = i32x4_add(acc0, acc1);
    i32x4_extract_lane::<0>(acc)
        + i32x4_extract_lane::<1>(acc)
        + i32x4_extract_lane::<2>(acc)
        + i32x4_extract_lane::<3>(acc)
}

/// `acc` plus the products of the sixteen int8 values at `x` and at `y`, in
/// four i32 lanes. A function called directly, not a closure, and always
/// inlined: a size-optimised build (`opt-level = "z"`) keeps a closure out
/// of line, a call per sixteen bytes.
///
/// # Safety
/// `x` and `y` must each point at sixteen readable bytes (`v128_load` reads unaligned).
#[inline(always)]
unsafe fn dot_i8_step(acc: core::arch::wasm32::v128, x: *const i8, y: *const i8) -> core::arch::wasm32::v128 {
    let (x, y) = (v128_load(x as *const v128), v128_load(y as *const v128));
    // Two products of values in -127..=127 sum to at most 32,258: they fit
    // an i16 lane before widening.
    let pairs = i16x8_add(i16x8_extmul_low_i8x16(x, y), i16x8_extmul_high_i8x16(x, y));
    i32x4_add(acc, i32x4_extadd_pairwise_i16x8(pairs))
}

/// `largest_magnitude` of the first multiple of four values, and how many.
pub fn largest_magnitude(vector: &[f32]) -> (f32, usize) {
    let n = vector.len() / 4 * 4;
    let mut acc = f32x4_splat(0.0);
    let mut i = 0;
    while i < n {
        // SAFETY: i + 4 <= n, within `vector`; v128_load reads unaligned.
        let v = unsafe { v128_load(vector.as_ptr().add(i) as *const v128) };
        // pmax keeps `acc` when the other lane is NaN, as `f32::max` does.
        acc = f32x4_pmax(acc, f32x4_abs(v));
        i += 4;
    }
    let lanes = [
        f32x4_extract_lane::<0>(acc),
        f32x4_extract_lane::<1>(acc),
        f32x4_extract_lane::<2>(acc),
        f32x4_extract_lane::<3>(acc),
    ];
    (lanes.into_iter().fold(0.0, f32::max), n)
}

/// The scalar loop of `quantize_into` sixteen values at a time, exactly
/// (`nearest` rounds ties to even, the saturating conversion turns NaN to 0);
/// returns how many it wrote.
pub fn scale_to_i8(vector: &[f32], out: &mut [i8], factor: f32) -> usize {
    let n = vector.len().min(out.len()) / 16 * 16;
    let f = f32x4_splat(factor);
    // SAFETY: j + 4 <= n, within `vector`; v128_load reads unaligned.
    let ints = |j: usize| {
        let v = unsafe { v128_load(vector.as_ptr().add(j) as *const v128) };
        i32x4_trunc_sat_f32x4(f32x4_nearest(f32x4_mul(v, f)))
    };
    let mut i = 0;
    while i < n {
        let low = i16x8_narrow_i32x4(ints(i), ints(i + 4));
        let high = i16x8_narrow_i32x4(ints(i + 8), ints(i + 12));
        // SAFETY: i + 16 <= n, within `out`; v128_store writes unaligned.
        unsafe {
            v128_store(
                out.as_mut_ptr().add(i) as *mut v128,
                i8x16_narrow_i16x8(low, high),
            )
        };
        i += 16;
    }
    n
}
