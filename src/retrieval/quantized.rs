//! An int8 copy of a vector set for a fast first pass: each vector scaled by
//! its own largest magnitude to -127..=127, rows padded with zeros to a
//! multiple of 16 bytes, and an integer dot product (wasm `simd128` where
//! compiled in). A quarter of the f32 memory.

/// The int8 rows of a vector set and each row's scale.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QuantizedSet {
    stride: usize,
    data: Vec<i8>,
    scales: Vec<f32>,
}

/// Bytes per quantised row for `dims` dimensions: a multiple of 16.
pub fn stride_for(dims: usize) -> usize {
    dims.div_ceil(16) * 16
}

/// Writes `vector` as int8 into `out` (zero-padded) and returns the scale
/// that maps them back (`vector[i] ≈ out[i] as f32 * scale`).
pub fn quantize_into(vector: &[f32], out: &mut [i8]) -> f32 {
    let largest = largest_magnitude(vector);
    out.fill(0);
    if largest == 0.0 || !largest.is_finite() {
        return 0.0;
    }
    let factor = 127.0 / largest;
    let n = vector.len().min(out.len());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let done = scale_simd128(&vector[..n], &mut out[..n], factor);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let done = 0;
    for (q, x) in out[done..n].iter_mut().zip(&vector[done..n]) {
        // One wasm instruction (`f32.nearest`), where `round` is a libm call.
        // Saturating cast: |x * factor| <= 127, NaN becomes 0.
        *q = (x * factor).round_ties_even() as i8;
    }
    largest / 127.0
}

/// The largest absolute value (NaN ignored).
fn largest_magnitude(vector: &[f32]) -> f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let (mut largest, done) = largest_simd128(vector);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let (mut largest, done) = (0.0f32, 0);
    for x in &vector[done..] {
        largest = largest.max(x.abs());
    }
    largest
}

/// [`largest_magnitude`] of the first multiple of four values, and how many.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn largest_simd128(vector: &[f32]) -> (f32, usize) {
    use core::arch::wasm32::*;
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

/// The scalar loop of [`quantize_into`] sixteen values at a time, exactly
/// (`nearest` rounds ties to even, the saturating conversion turns NaN to 0);
/// returns how many it wrote.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn scale_simd128(vector: &[f32], out: &mut [i8], factor: f32) -> usize {
    use core::arch::wasm32::*;
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

impl QuantizedSet {
    /// An empty set of `dims`-dimensional rows.
    pub fn new(dims: usize) -> Self {
        QuantizedSet {
            stride: stride_for(dims),
            data: Vec::new(),
            scales: Vec::new(),
        }
    }

    /// Appends the int8 form of `vector`.
    pub fn push(&mut self, vector: &[f32]) {
        let start = self.data.len();
        self.data.resize(start + self.stride, 0);
        let scale = quantize_into(vector, &mut self.data[start..]);
        self.scales.push(scale);
    }

    /// Bytes per row (dimensions rounded up to a multiple of 16).
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// The rows, back to back.
    pub fn as_flat(&self) -> &[i8] {
        &self.data
    }

    /// Each row's scale.
    pub fn scales(&self) -> &[f32] {
        &self.scales
    }

    /// Row `i`: its int8 values (a stride long, zero-padded) and its scale.
    pub fn row(&self, i: usize) -> (&[i8], f32) {
        (&self.data[i * self.stride..(i + 1) * self.stride], self.scales[i])
    }

    /// The bytes it holds.
    pub fn bytes(&self) -> usize {
        self.data.len() + self.scales.len() * 4
    }

    /// A query in this set's int8 layout (its own scale is dropped: it
    /// scales every score alike and so does not change their order).
    pub fn quantize_query(&self, query: &[f32]) -> Vec<i8> {
        let mut out = vec![0i8; self.stride];
        quantize_into(query, &mut out);
        out
    }
}

/// The approximate dot product of two quantised rows, each with its scale.
#[inline(always)]
pub fn dot_rows(a: (&[i8], f32), b: (&[i8], f32)) -> f32 {
    dot_i8(a.0, b.0) as f32 * a.1 * b.1
}

/// Integer dot product of two equally long int8 rows whose length is a
/// multiple of 16 and whose values lie in -127..=127.
#[inline(always)]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    debug_assert!(a.len() == b.len() && a.len() % 16 == 0);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        dot_i8_simd128(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot_i8_lanes(a, b)
    }
}

/// [`dot_i8`] in sixteen independent lanes (the compiler vectorises it natively).
#[inline(always)]
pub fn dot_i8_lanes(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    for (x, y) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        for lane in 0..16 {
            acc[lane] += x[lane] as i32 * y[lane] as i32;
        }
    }
    acc.iter().sum()
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn dot_i8_simd128(a: &[i8], b: &[i8]) -> i32 {
    use core::arch::wasm32::*;
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
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
unsafe fn dot_i8_step(acc: core::arch::wasm32::v128, x: *const i8, y: *const i8) -> core::arch::wasm32::v128 {
    use core::arch::wasm32::*;
    let (x, y) = (v128_load(x as *const v128), v128_load(y as *const v128));
    // Two products of values in -127..=127 sum to at most 32,258: they fit
    // an i16 lane before widening.
    let pairs = i16x8_add(i16x8_extmul_low_i8x16(x, y), i16x8_extmul_high_i8x16(x, y));
    i32x4_add(acc, i32x4_extadd_pairwise_i16x8(pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_padded_and_scaled() {
        let mut set = QuantizedSet::new(20);
        assert_eq!(set.stride(), 32);
        let v: Vec<f32> = (0..20).map(|i| (i as f32 - 10.0) / 10.0).collect();
        set.push(&v);
        set.push(&[0.0; 20]);
        assert_eq!(set.len(), 2);
        let row = &set.as_flat()[..32];
        assert_eq!(row[0], -127);
        assert!(row[20..].iter().all(|&x| x == 0));
        for (q, x) in row.iter().zip(&v) {
            assert!((*q as f32 * set.scales()[0] - x).abs() <= set.scales()[0] / 2.0 + 1e-6);
        }
        assert_eq!(set.scales()[1], 0.0);
        assert!(set.as_flat()[32..].iter().all(|&x| x == 0));
    }

    #[test]
    fn integer_dot_products_agree() {
        let a: Vec<i8> = (0..48).map(|i| ((i * 37) % 255 - 127) as i8).collect();
        let b: Vec<i8> = (0..48).map(|i| ((i * 91) % 255 - 127) as i8).collect();
        let reference: i32 = a.iter().zip(&b).map(|(x, y)| *x as i32 * *y as i32).sum();
        assert_eq!(dot_i8(&a, &b), reference);
        assert_eq!(dot_i8_lanes(&a, &b), reference);
        let extreme = vec![-127i8; 64];
        assert_eq!(dot_i8(&extreme, &extreme), 64 * 127 * 127);
    }
}
