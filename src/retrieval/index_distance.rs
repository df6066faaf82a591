//! Int8 vectors for the index: each vector scaled by its largest magnitude
//! to `-127..=127` (one `f32` scale per vector), and their dot product,
//! `simd128` in wasm builds. Building the index compares vectors through
//! these: a quarter of the bytes of `f32`, and a faster dot product.

use super::vector::VectorSet;

/// Many int8 vectors of one dimension, back to back, with their scales.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QuantisedSet {
    dims: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

impl QuantisedSet {
    /// The int8 form of every vector of `set`.
    pub fn of(set: &VectorSet) -> Self {
        let mut codes = vec![0i8; set.len() * set.dims()];
        let mut scales = Vec::with_capacity(set.len());
        for (i, out) in codes.chunks_exact_mut(set.dims().max(1)).enumerate() {
            scales.push(quantise(set.get(i), out));
        }
        QuantisedSet {
            dims: set.dims(),
            codes,
            scales,
        }
    }

    /// How many vectors.
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// Vector `i`: its codes and its scale.
    pub fn get(&self, i: usize) -> (&[i8], f32) {
        (&self.codes[i * self.dims..(i + 1) * self.dims], self.scales[i])
    }

    /// The bytes it holds.
    pub fn bytes(&self) -> usize {
        self.codes.len() + self.scales.len() * 4
    }
}

/// Writes the codes of `vector` into `out` (as long) and returns the scale:
/// `vector[i] ≈ out[i] * scale`.
pub fn quantise(vector: &[f32], out: &mut [i8]) -> f32 {
    let largest = vector.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if largest == 0.0 || !largest.is_finite() {
        out.iter_mut().for_each(|c| *c = 0);
        return 0.0;
    }
    let scale = largest / 127.0;
    for (code, &x) in out.iter_mut().zip(vector) {
        *code = (x / scale).round().clamp(-127.0, 127.0) as i8;
    }
    scale
}

/// The approximate dot product of two quantised vectors.
#[inline]
pub fn dot_quantised(a: (&[i8], f32), b: (&[i8], f32)) -> f32 {
    dot_i8(a.0, b.0) as f32 * a.1 * b.1
}

/// Dot product of two equally long int8 vectors.
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        dot_i8_simd128(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot_i8_lanes(a, b)
    }
}

/// In sixteen independent lanes (the compiler vectorises it natively).
#[inline]
pub fn dot_i8_lanes(a: &[i8], b: &[i8]) -> i32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0i32; 16];
    let blocks = n / 16;
    for c in 0..blocks {
        let (x, y) = (&a[c * 16..c * 16 + 16], &b[c * 16..c * 16 + 16]);
        for lane in 0..16 {
            acc[lane] += i32::from(x[lane]) * i32::from(y[lane]);
        }
    }
    let mut sum: i32 = acc.iter().sum();
    for i in blocks * 16..n {
        sum += i32::from(a[i]) * i32::from(b[i]);
    }
    sum
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn dot_i8_simd128(a: &[i8], b: &[i8]) -> i32 {
    use core::arch::wasm32::*;
    let n = a.len().min(b.len());
    let blocks = n / 16;
    let mut acc = i32x4_splat(0);
    for i in 0..blocks {
        // SAFETY: i * 16 + 16 <= n, so both 16-byte loads stay inside the slices; v128_load allows unaligned reads.
        let (x, y) = unsafe {
            (
                v128_load(a.as_ptr().add(i * 16) as *const v128),
                v128_load(b.as_ptr().add(i * 16) as *const v128),
            )
        };
        let low = i32x4_dot_i16x8(i16x8_extend_low_i8x16(x), i16x8_extend_low_i8x16(y));
        let high = i32x4_dot_i16x8(i16x8_extend_high_i8x16(x), i16x8_extend_high_i8x16(y));
        acc = i32x4_add(acc, i32x4_add(low, high));
    }
    let mut sum = i32x4_extract_lane::<0>(acc)
        + i32x4_extract_lane::<1>(acc)
        + i32x4_extract_lane::<2>(acc)
        + i32x4_extract_lane::<3>(acc);
    for i in blocks * 16..n {
        sum += i32::from(a[i]) * i32::from(b[i]);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::vector::{dot, normalize};

    #[test]
    fn int8_dot_products_agree_with_f32() {
        let mut a: Vec<f32> = (0..385).map(|i| (i as f32 * 0.37).sin()).collect();
        let mut b: Vec<f32> = (0..385).map(|i| (i as f32 * 0.11).cos()).collect();
        normalize(&mut a);
        normalize(&mut b);
        let mut set = VectorSet::new(385);
        set.push(&a);
        set.push(&b);
        let q = QuantisedSet::of(&set);
        assert_eq!(q.len(), 2);
        assert_eq!(q.bytes(), 2 * 385 + 8);
        let (ca, cb) = (q.get(0).0, q.get(1).0);
        let scalar: i32 = ca
            .iter()
            .zip(cb)
            .map(|(&x, &y)| i32::from(x) * i32::from(y))
            .sum();
        assert_eq!(dot_i8(ca, cb), scalar);
        assert!((dot_quantised(q.get(0), q.get(1)) - dot(&a, &b)).abs() < 0.01);
        assert!((dot_quantised(q.get(0), q.get(0)) - 1.0).abs() < 0.01);
    }

    #[test]
    fn a_zero_vector_quantises_to_zero() {
        let mut out = [1i8; 4];
        assert_eq!(quantise(&[0.0; 4], &mut out), 0.0);
        assert_eq!(out, [0; 4]);
        assert_eq!(quantise(&[0.5, -1.0, 0.0, 0.25], &mut out), 1.0 / 127.0);
        assert_eq!(out, [64, -127, 0, 32]);
    }
}
