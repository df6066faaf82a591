//! candle's quantized Llama behind three calls, for timing in a page: load a GGUF,
//! read a prompt of token ids, generate greedily one token at a time.

use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor, D};
use candle_transformers::models::quantized_llama::ModelWeights;
use wasm_bindgen::prelude::*;

/// A loaded model and its position in the sequence.
#[wasm_bindgen]
pub struct Probe {
    model: ModelWeights,
    position: usize,
}

fn js(e: candle_core::Error) -> JsError {
    JsError::new(&e.to_string())
}

#[wasm_bindgen]
impl Probe {
    /// Reads the GGUF file's bytes.
    #[wasm_bindgen(constructor)]
    pub fn new(gguf: Vec<u8>) -> Result<Probe, JsError> {
        let mut reader = std::io::Cursor::new(gguf);
        let content = gguf_file::Content::read(&mut reader).map_err(js)?;
        let model = ModelWeights::from_gguf(content, &mut reader, &Device::Cpu).map_err(js)?;
        Ok(Probe { model, position: 0 })
    }

    /// Reads `ids` after what was read before; returns the most likely next token.
    pub fn read(&mut self, ids: Vec<u32>) -> Result<u32, JsError> {
        let input = Tensor::new(ids.as_slice(), &Device::Cpu)
            .and_then(|t| t.unsqueeze(0))
            .map_err(js)?;
        let logits = self.model.forward(&input, self.position).map_err(js)?;
        self.position += ids.len();
        logits
            .squeeze(0)
            .and_then(|l| l.argmax(D::Minus1))
            .and_then(|t| t.to_scalar::<u32>())
            .map_err(js)
    }

    /// Forgets the sequence (the KV cache), to start another prompt.
    pub fn reset(&mut self) {
        self.model.clear_kv_cache();
        self.position = 0;
    }
}
