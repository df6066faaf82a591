//! The encoder's element-wise steps and its attention: layer norm, GELU,
//! softmax, and one head's scaled dot-product attention over all tokens.

use crate::kernels::f32x4::F4;

/// `row = (row − mean) / √(var + eps) · weight + bias` (biased variance).
pub fn layer_norm(row: &mut [f32], weight: &[f32], bias: &[f32], eps: f32) {
    let n = row.len() as f32;
    let mean = row.iter().sum::<f32>() / n;
    let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
    let inv = 1.0 / (var + eps).sqrt();
    for ((v, w), b) in row.iter_mut().zip(weight).zip(bias) {
        *v = (*v - mean) * inv * w + b;
    }
}

/// The exact GELU, `x · Φ(x) = ½ x (1 + erf(x / √2))`, in place.
pub fn gelu(values: &mut [f32]) {
    for v in values {
        *v = 0.5 * *v * (1.0 + libm::erff(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// Softmax in place.
pub fn softmax(values: &mut [f32]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in values.iter_mut() {
        *v = libm::expf(*v - max);
        sum += *v;
    }
    let inv = 1.0 / sum;
    values.iter_mut().for_each(|v| *v *= inv);
}

/// Buffers one head's attention reuses across rows and calls.
#[derive(Debug, Default)]
pub struct AttentionScratch {
    /// The head's keys, transposed: `keys_t[d][j]`, rows of `padded` floats.
    keys_t: Vec<f32>,
    scores: Vec<f32>,
}

/// One head of self-attention over `n` tokens: `qkv` holds each token's
/// query, key and value rows (`[n × 3·width]`, this head's `dims` columns
/// at `offset` within each third); writes each token's context into `out`
/// (`[n × width]`, the same columns).
pub fn attend(
    qkv: &[f32],
    n: usize,
    width: usize,
    offset: usize,
    dims: usize,
    out: &mut [f32],
    scratch: &mut AttentionScratch,
) {
    assert!(dims % 4 == 0 && qkv.len() >= n * 3 * width && out.len() >= n * width);
    let padded = n.next_multiple_of(4);
    let AttentionScratch { keys_t, scores } = scratch;
    keys_t.clear();
    keys_t.resize(dims * padded, 0.0);
    scores.clear();
    scores.resize(padded, 0.0);
    for j in 0..n {
        for d in 0..dims {
            keys_t[d * padded + j] = qkv[j * 3 * width + width + offset + d];
        }
    }
    let scale = 1.0 / (dims as f32).sqrt();
    for i in 0..n {
        let query = &qkv[i * 3 * width + offset..][..dims];
        score_row(query, keys_t, padded, scores);
        let row = &mut scores[..n];
        row.iter_mut().for_each(|s| *s *= scale);
        softmax(row);
        let context = &mut out[i * width + offset..][..dims];
        weighted_values(row, qkv, 3 * width, 2 * width + offset, context);
    }
}

/// `scores[j] = query · key_j` for every column `j` of `keys_t` (`padded` wide).
fn score_row(query: &[f32], keys_t: &[f32], padded: usize, scores: &mut [f32]) {
    assert!(keys_t.len() >= query.len() * padded && scores.len() >= padded);
    for j in (0..padded).step_by(4) {
        let mut acc = F4::splat(0.0);
        for (d, &q) in query.iter().enumerate() {
            // SAFETY: d < query.len() and j + 4 <= padded: within keys_t (asserted).
            acc = acc.madd(F4::splat(q), unsafe {
                F4::load(keys_t.as_ptr().add(d * padded + j))
            });
        }
        // SAFETY: j + 4 <= padded <= scores.len().
        unsafe { acc.store(scores.as_mut_ptr().add(j)) };
    }
}

/// `out = Σ_j weights[j] · values_j`, where `values_j` is `out.len()` floats
/// at `offset` in row `j` (stride `stride`) of `rows`.
fn weighted_values(weights: &[f32], rows: &[f32], stride: usize, offset: usize, out: &mut [f32]) {
    let dims = out.len();
    assert!(dims % 4 == 0);
    out.fill(0.0);
    for (j, &w) in weights.iter().enumerate() {
        let value = &rows[j * stride + offset..][..dims];
        let w = F4::splat(w);
        for d in (0..dims).step_by(4) {
            // SAFETY: d + 4 <= dims = value.len() = out.len().
            unsafe {
                let acc = F4::load(out.as_ptr().add(d)).madd(w, F4::load(value.as_ptr().add(d)));
                acc.store(out.as_mut_ptr().add(d));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_sums_to_one_and_keeps_the_order() {
        let mut v = [1.0, 3.0, 2.0, -50.0];
        softmax(&mut v);
        assert!((v.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(v[1] > v[2] && v[2] > v[0] && v[3] < 1e-20);
    }

    #[test]
    fn gelu_matches_known_values() {
        let mut v = [0.0, 1.0, -1.0];
        gelu(&mut v);
        assert!((v[1] - 0.841_344_7).abs() < 1e-6 && (v[2] + 0.158_655_3).abs() < 1e-6 && v[0] == 0.0);
    }

    #[test]
    fn attention_over_identical_keys_averages_the_values() {
        let (n, width, dims) = (3, 4, 4);
        let mut qkv = vec![0.0; n * 3 * width];
        for j in 0..n {
            qkv[j * 3 * width + 2 * width..][..4].copy_from_slice(&[j as f32, 1.0, 2.0, 3.0]);
        }
        let mut out = vec![0.0; n * width];
        attend(
            &qkv,
            n,
            width,
            0,
            dims,
            &mut out,
            &mut AttentionScratch::default(),
        );
        assert!((out[0] - 1.0).abs() < 1e-6 && (out[1] - 1.0).abs() < 1e-6);
    }
}
