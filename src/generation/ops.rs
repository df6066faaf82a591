//! The decoder's element-wise steps, with llama.cpp's arithmetic (the sum of
//! squares in `f64`, RoPE's angles by repeated products, GELU read from a
//! half-float table).

use crate::kernels::half::round_to_half;

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
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    const COEF_A: f32 = 0.044_715;
    for (g, u) in gate.iter_mut().zip(up) {
        let x = *g;
        let gelu = if x <= -10.0 {
            0.0
        } else if x >= 10.0 {
            x
        } else {
            let x = round_to_half(x);
            round_to_half(0.5 * x * (1.0 + (SQRT_2_OVER_PI * x * (1.0 + COEF_A * x * x)).tanh()))
        };
        *g = gelu * u;
    }
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
