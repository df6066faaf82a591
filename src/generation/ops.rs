//! The decoder's element-wise steps, with llama.cpp's arithmetic (the sum of
//! squares in `f64`, RoPE's angles by repeated products, GELU read from a
//! half-float table).

use std::sync::OnceLock;

use crate::kernels::half::{f16_to_f32, f32_to_f16, round_to_half};

/// `x / rms(x) · weight` (RMSNorm).
pub fn rms_norm(x: &[f32], weight: &[f32], eps: f32, out: &mut [f32]) {
    let scale = rms_scale(x, eps);
    for ((o, v), w) in out.iter_mut().zip(x).zip(weight) {
        *o = (v * scale) * w;
    }
}

/// [`rms_norm`] in place.
pub fn rms_norm_in_place(x: &mut [f32], weight: &[f32], eps: f32) {
    let scale = rms_scale(x, eps);
    for (v, w) in x.iter_mut().zip(weight) {
        *v = (*v * scale) * w;
    }
}

/// `1 / √(mean(x²) + eps)`, the squares summed in `f64`.
fn rms_scale(x: &[f32], eps: f32) -> f32 {
    let squares: f64 = x.iter().map(|v| (v * v) as f64).sum();
    let mean = (squares / x.len() as f64) as f32;
    1.0 / (mean + eps).sqrt()
}

/// Rotates each adjacent pair `(x[2i], x[2i+1])` of every `head_dim`-wide
/// head by `position · base^(−2i/head_dim)` (RoPE, llama.cpp's "normal" mode,
/// which GGUF's permuted Llama weights expect).
pub fn rope(x: &mut [f32], head_dim: usize, position: usize, base: f32) {
    let theta_scale = base.powf(-2.0 / head_dim as f32);
    for head in x.chunks_exact_mut(head_dim) {
        let mut theta = position as f32;
        for pair in head.chunks_exact_mut(2) {
            let (sin, cos) = theta.sin_cos();
            let (x0, x1) = (pair[0], pair[1]);
            pair[0] = x0 * cos - x1 * sin;
            pair[1] = x0 * sin + x1 * cos;
            theta *= theta_scale;
        }
    }
}

/// Rotates each pair `(x[i], x[i + head_dim/2])` of every `head_dim`-wide
/// head by `position · base^(−2i/head_dim)` (RoPE, llama.cpp's "NeoX" mode,
/// which Gemma's weights expect).
pub fn rope_halves(x: &mut [f32], head_dim: usize, position: usize, base: f32) {
    let theta_scale = base.powf(-2.0 / head_dim as f32);
    let half_dim = head_dim / 2;
    for head in x.chunks_exact_mut(head_dim) {
        let (first, second) = head.split_at_mut(half_dim);
        let mut theta = position as f32;
        for (a, b) in first.iter_mut().zip(second.iter_mut()) {
            let (sin, cos) = theta.sin_cos();
            let (x0, x1) = (*a, *b);
            *a = x0 * cos - x1 * sin;
            *b = x0 * sin + x1 * cos;
            theta *= theta_scale;
        }
    }
}

/// `gelu(gate) · up`, in place in `gate` (GeGLU), GELU's tanh form as ggml
/// reads it from its half-float table: the input and the result rounded to
/// half floats, 0 below −10 and the input itself above 10.
pub fn geglu(gate: &mut [f32], up: &[f32]) {
    let table = gelu_table();
    for (g, u) in gate.iter_mut().zip(up) {
        let x = *g;
        let gelu = if x <= -10.0 {
            0.0
        } else if x >= 10.0 {
            x
        } else {
            table[f32_to_f16(x) as usize]
        };
        *g = gelu * u;
    }
}

/// GELU of every half float, indexed by its bits, the result rounded to a
/// half float (ggml's `table_gelu_f16`); made once, on first use (2^16 tanh).
fn gelu_table() -> &'static [f32] {
    static TABLE: OnceLock<Vec<f32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=u16::MAX)
            .map(|bits| gelu_of_half(f16_to_f32(bits)))
            .collect()
    })
}

/// GELU's tanh form of `x` (a half float's value), rounded to a half float.
fn gelu_of_half(x: f32) -> f32 {
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    const COEF_A: f32 = 0.044_715;
    round_to_half(0.5 * x * (1.0 + (SQRT_2_OVER_PI * x * (1.0 + COEF_A * x * x)).tanh()))
}

/// `silu(gate) · up`, in place in `gate` (SwiGLU).
pub fn swiglu(gate: &mut [f32], up: &[f32]) {
    for (g, u) in gate.iter_mut().zip(up) {
        *g = *g / (1.0 + (-*g).exp()) * u;
    }
}

/// The index of the largest value (the first of equals).
pub fn argmax(values: &[f32]) -> usize {
    let mut best = 0;
    for (i, v) in values.iter().enumerate() {
        if *v > values[best] {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GeGLU read from the table is GELU computed on the input rounded to a
    /// half float, then rounded itself (the step by step form it replaced),
    /// for every half float and values between them.
    #[test]
    fn geglu_from_the_table_is_gelu_of_the_half_float_input() {
        let direct = |x: f32| {
            if x <= -10.0 {
                0.0
            } else if x >= 10.0 {
                x
            } else {
                gelu_of_half(round_to_half(x))
            }
        };
        let halves = (0..=u16::MAX).map(f16_to_f32).filter(|x| !x.is_nan());
        let between = (0..20_000).map(|i| (i as f32 - 10_000.0) * 0.001_37);
        let xs: Vec<f32> = halves.chain(between).collect();
        let mut gate = xs.clone();
        geglu(&mut gate, &vec![1.5; xs.len()]);
        for (x, got) in xs.iter().zip(&gate) {
            let expected = direct(*x) * 1.5;
            assert_eq!(got.to_bits(), expected.to_bits(), "x = {x}: {got} vs {expected}");
        }
    }
}
