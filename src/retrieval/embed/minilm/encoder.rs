//! all-MiniLM-L6-v2's encoder: a 6-layer post-LN BERT (384 wide, 12 heads,
//! exact GELU) whose token states are mean-pooled (`[CLS]` and `[SEP]` included)
//! and scaled to unit length — the sentence embedding sentence-transformers
//! gives.

use super::linear::{Linear, ROWS};
use super::ops::{attend, gelu, layer_norm, AttentionScratch};
use super::safetensors::{FileBytes, Safetensors};
use crate::error::{Error, Result};
use crate::kernels::half::{f16_to_f32, f32_to_f16};

/// The embedding's dimensions.
pub const DIMS: usize = 384;
const HEADS: usize = 12;
const HEAD_DIMS: usize = DIMS / HEADS;
const HIDDEN: usize = 1536;
const LAYERS: usize = 6;
const POSITIONS: usize = 512;
const VOCAB: usize = 30_522;
const EPS: f32 = 1e-12;

/// A layer norm's scale and shift.
#[derive(Debug, Clone)]
struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

/// One encoder layer.
#[derive(Debug, Clone)]
struct Layer {
    /// Query, key and value in one layer (`DIMS` → `3·DIMS`).
    qkv: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    up: Linear,
    down: Linear,
    output_norm: Norm,
}

/// The model's weights, ready to encode.
#[derive(Debug, Clone)]
pub struct Encoder {
    /// The word-embedding table in half precision (`[VOCAB × DIMS]`).
    words: Vec<u16>,
    positions: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

impl Encoder {
    /// The encoder of a `model.safetensors` of all-MiniLM-L6-v2 (BERT names,
    /// f32); a `Config` error naming the first tensor that is not as expected.
    pub fn from_safetensors(file: &dyn FileBytes) -> Result<Self> {
        let file = Safetensors::parse(file)?;
        let norm = |prefix: &str| -> Result<Norm> {
            Ok(Norm {
                weight: file.f32s(&format!("{prefix}.weight"), &[DIMS])?,
                bias: file.f32s(&format!("{prefix}.bias"), &[DIMS])?,
            })
        };
        let embeddings = "embeddings";
        let mut token_type = file.f32s(&format!("{embeddings}.token_type_embeddings.weight"), &[2, DIMS])?;
        token_type.truncate(DIMS);
        Ok(Encoder {
            words: file.converted(
                &format!("{embeddings}.word_embeddings.weight"),
                &[VOCAB, DIMS],
                f32_to_f16,
            )?,
            positions: file.f32s(
                &format!("{embeddings}.position_embeddings.weight"),
                &[POSITIONS, DIMS],
            )?,
            token_type,
            embedding_norm: norm(&format!("{embeddings}.LayerNorm"))?,
            layers: (0..LAYERS)
                .map(|l| layer(&file, &format!("encoder.layer.{l}"), &norm))
                .collect::<Result<_>>()?,
        })
    }

    /// The unit-length embedding of the token ids `ids` (`[CLS]` … `[SEP]`,
    /// at most 512); an error for an empty list, too many ids or an id
    /// outside the vocabulary.
    pub fn embed(&self, ids: &[u32]) -> Result<Vec<f32>> {
        if ids.is_empty() || ids.len() > POSITIONS {
            return Err(Error::config(format!(
                "MiniLM takes 1 to {POSITIONS} tokens, got {}",
                ids.len()
            )));
        }
        let n = ids.len();
        let rows = n.next_multiple_of(ROWS);
        let mut x = vec![0.0; rows * DIMS];
        for (i, &id) in ids.iter().enumerate() {
            let word = self
                .words
                .get(id as usize * DIMS..(id as usize + 1) * DIMS)
                .ok_or_else(|| Error::config(format!("token id {id} is outside the vocabulary")))?;
            let row = &mut x[i * DIMS..(i + 1) * DIMS];
            let position = &self.positions[i * DIMS..(i + 1) * DIMS];
            for (j, v) in row.iter_mut().enumerate() {
                *v = f16_to_f32(word[j]) + position[j] + self.token_type[j];
            }
            layer_norm(row, &self.embedding_norm.weight, &self.embedding_norm.bias, EPS);
        }
        let mut scratch = Scratch::new(rows);
        for layer in &self.layers {
            x = layer.forward(x, n, rows, &mut scratch);
        }
        Ok(mean_unit(&x[..n * DIMS]))
    }
}

/// The weights of layer `prefix`.
fn layer(file: &Safetensors, prefix: &str, norm: &dyn Fn(&str) -> Result<Norm>) -> Result<Layer> {
    let linear = |name: &str, outputs: usize, inputs: usize| -> Result<(Vec<f32>, Vec<f32>)> {
        Ok((
            file.f32s(&format!("{prefix}.{name}.weight"), &[outputs, inputs])?,
            file.f32s(&format!("{prefix}.{name}.bias"), &[outputs])?,
        ))
    };
    let (mut qkv, mut qkv_bias) = (Vec::with_capacity(3 * DIMS * DIMS), Vec::with_capacity(3 * DIMS));
    for part in ["query", "key", "value"] {
        let (weight, bias) = linear(&format!("attention.self.{part}"), DIMS, DIMS)?;
        qkv.extend(weight);
        qkv_bias.extend(bias);
    }
    let packed =
        |(weight, bias): (Vec<f32>, Vec<f32>), outputs, inputs| Linear::new(&weight, bias, outputs, inputs);
    Ok(Layer {
        qkv: Linear::new(&qkv, qkv_bias, 3 * DIMS, DIMS),
        attention_out: packed(linear("attention.output.dense", DIMS, DIMS)?, DIMS, DIMS),
        attention_norm: norm(&format!("{prefix}.attention.output.LayerNorm"))?,
        up: packed(linear("intermediate.dense", HIDDEN, DIMS)?, HIDDEN, DIMS),
        down: packed(linear("output.dense", DIMS, HIDDEN)?, DIMS, HIDDEN),
        output_norm: norm(&format!("{prefix}.output.LayerNorm"))?,
    })
}

/// Buffers a forward pass reuses from layer to layer.
struct Scratch {
    qkv: Vec<f32>,
    context: Vec<f32>,
    hidden: Vec<f32>,
    out: Vec<f32>,
    attention: AttentionScratch,
}

impl Scratch {
    fn new(rows: usize) -> Self {
        Scratch {
            qkv: vec![0.0; rows * 3 * DIMS],
            context: vec![0.0; rows * DIMS],
            hidden: vec![0.0; rows * HIDDEN],
            out: vec![0.0; rows * DIMS],
            attention: AttentionScratch::default(),
        }
    }
}

impl Layer {
    /// The layer's output for the token states `x` (`n` real rows of `rows`).
    fn forward(&self, x: Vec<f32>, n: usize, rows: usize, s: &mut Scratch) -> Vec<f32> {
        self.qkv.apply(&x, rows, &mut s.qkv);
        for head in 0..HEADS {
            attend(
                &s.qkv,
                n,
                DIMS,
                head * HEAD_DIMS,
                HEAD_DIMS,
                &mut s.context,
                &mut s.attention,
            );
        }
        self.attention_out.apply(&s.context, rows, &mut s.out);
        add_and_norm(&mut s.out, &x, n, &self.attention_norm);
        let attended = std::mem::replace(&mut s.out, x);
        self.up.apply(&attended, rows, &mut s.hidden);
        gelu(&mut s.hidden[..n * HIDDEN]);
        self.down.apply(&s.hidden, rows, &mut s.out);
        add_and_norm(&mut s.out, &attended, n, &self.output_norm);
        std::mem::replace(&mut s.out, attended)
    }
}

/// `out = LayerNorm(out + residual)`, row by row, for the `n` real rows.
fn add_and_norm(out: &mut [f32], residual: &[f32], n: usize, norm: &Norm) {
    for (row, skip) in out
        .chunks_exact_mut(DIMS)
        .zip(residual.chunks_exact(DIMS))
        .take(n)
    {
        row.iter_mut().zip(skip).for_each(|(v, r)| *v += r);
        layer_norm(row, &norm.weight, &norm.bias, EPS);
    }
}

/// The mean of the rows, scaled to unit length.
fn mean_unit(states: &[f32]) -> Vec<f32> {
    let mut mean = vec![0.0; DIMS];
    for row in states.chunks_exact(DIMS) {
        mean.iter_mut().zip(row).for_each(|(m, v)| *m += v);
    }
    let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt().max(EPS);
    mean.iter_mut().for_each(|v| *v /= norm);
    mean
}
