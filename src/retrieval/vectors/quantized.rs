//! An int8 copy of a vector set for a fast first pass: each vector scaled by
//! its own largest magnitude to -127..=127, rows padded with zeros to a
//! multiple of 16 bytes, and an integer dot product (wasm `simd128` where
//! compiled in). A quarter of the f32 memory.

use crate::kernels::search;

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
    let done = search::scale_to_i8(&vector[..n], &mut out[..n], factor);
    for (q, x) in out[done..n].iter_mut().zip(&vector[done..n]) {
        // One wasm instruction (`f32.nearest`), where `round` is a libm call.
        // Saturating cast: |x * factor| <= 127, NaN becomes 0.
        *q = (x * factor).round_ties_even() as i8;
    }
    largest / 127.0
}

/// The largest absolute value (NaN ignored).
fn largest_magnitude(vector: &[f32]) -> f32 {
    let (mut largest, done) = search::largest_magnitude(vector);
    for x in &vector[done..] {
        largest = largest.max(x.abs());
    }
    largest
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
    search::dot_i8(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::search::dot_i8_lanes;

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
