//! GGUF, llama.cpp's model file: a header, typed metadata (the architecture's
//! hyper-parameters, the tokenizer's vocabulary and merges, the chat
//! template) and tensor descriptions, then the tensors' bytes, aligned.
//! Read from bytes in memory; nothing is copied but the metadata.

use std::collections::HashMap;

use crate::error::{Error, Result};

use super::gguf_meta::{MetaValue, Reader};

/// `GGUF` read as a little-endian `u32`.
const MAGIC: u32 = 0x4655_4747;
/// Where the tensor data starts is rounded up to this, unless `general.alignment` says otherwise.
const DEFAULT_ALIGNMENT: u64 = 32;

/// One tensor's description: where its bytes are and how to read them.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorInfo {
    /// Its name (`blk.0.attn_q.weight`).
    pub name: String,
    /// Its dimensions, innermost first (ggml's order: `[columns, rows]` for a matrix).
    pub dims: Vec<u64>,
    /// Its ggml type id (0 F32, 1 F16, 2 Q4_0, 3 Q4_1, 8 Q8_0, 12 Q4_K, 14 Q6_K, …).
    pub ggml_type: u32,
    /// Where its bytes start, from the start of the file.
    pub start: usize,
}

impl TensorInfo {
    /// How many values it holds.
    pub fn len(&self) -> usize {
        self.dims.iter().product::<u64>() as usize
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A parsed GGUF file: its metadata and tensors, over the file's bytes.
pub struct Gguf<'a> {
    bytes: &'a [u8],
    metadata: HashMap<String, MetaValue>,
    tensors: Vec<TensorInfo>,
}

impl<'a> Gguf<'a> {
    /// Reads the header, metadata and tensor descriptions of `bytes` (versions 2 and 3);
    /// a `Config` error says what is wrong with a file that is not one.
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let mut reader = Reader::new(bytes);
        if reader.u32()? != MAGIC {
            return Err(Error::config("the model file is not a GGUF file (no GGUF magic)"));
        }
        let version = reader.u32()?;
        if !(2..=3).contains(&version) {
            return Err(Error::config(format!(
                "the model file is GGUF version {version}; versions 2 and 3 are read"
            )));
        }
        let tensor_count = reader.count()?;
        let metadata_count = reader.count()?;
        let mut metadata = HashMap::new();
        for _ in 0..metadata_count {
            let key = reader.string()?;
            let value = reader.value()?;
            metadata.insert(key, value);
        }
        let mut tensors = Vec::with_capacity(tensor_count);
        let mut offsets = Vec::with_capacity(tensor_count);
        for _ in 0..tensor_count {
            let name = reader.string()?;
            let rank = reader.u32()? as usize;
            if rank > 4 {
                return Err(Error::config(format!(
                    "the model's tensor {name} has {rank} dimensions"
                )));
            }
            let dims = (0..rank).map(|_| reader.u64()).collect::<Result<Vec<_>>>()?;
            let ggml_type = reader.u32()?;
            offsets.push(reader.u64()?);
            tensors.push(TensorInfo {
                name,
                dims,
                ggml_type,
                start: 0,
            });
        }
        let alignment = match metadata.get("general.alignment") {
            Some(value) => value.as_u64().filter(|a| *a > 0).ok_or_else(|| {
                Error::config("the model file's general.alignment is not a positive integer")
            })?,
            None => DEFAULT_ALIGNMENT,
        };
        let data = (reader.position() as u64).div_ceil(alignment) * alignment;
        for (tensor, offset) in tensors.iter_mut().zip(offsets) {
            tensor.start = usize::try_from(data + offset).map_err(|_| {
                Error::config(format!("the model's tensor {} lies past the file", tensor.name))
            })?;
        }
        Ok(Gguf {
            bytes,
            metadata,
            tensors,
        })
    }

    /// The metadata value `key`, if present.
    pub fn meta(&self, key: &str) -> Option<&MetaValue> {
        self.metadata.get(key)
    }

    /// The metadata value `key` as text, if it is text.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.meta(key).and_then(MetaValue::as_str)
    }

    /// The metadata value `key` as an unsigned integer, or a `Config` error naming it.
    pub fn required_u64(&self, key: &str) -> Result<u64> {
        self.meta(key)
            .and_then(MetaValue::as_u64)
            .ok_or_else(|| Error::config(format!("the model file has no integer {key}")))
    }

    /// The metadata value `key` as a float, if it is a number.
    pub fn f32(&self, key: &str) -> Option<f32> {
        self.meta(key).and_then(MetaValue::as_f64).map(|v| v as f32)
    }

    /// Every tensor's description, in file order.
    pub fn tensors(&self) -> &[TensorInfo] {
        &self.tensors
    }

    /// The tensor `name`, if present.
    pub fn tensor(&self, name: &str) -> Option<&TensorInfo> {
        self.tensors.iter().find(|t| t.name == name)
    }

    /// The bytes of `tensor`, `byte_len` long, or a `Config` error if the file ends first.
    pub fn tensor_bytes(&self, tensor: &TensorInfo, byte_len: usize) -> Result<&'a [u8]> {
        tensor
            .start
            .checked_add(byte_len)
            .and_then(|end| self.bytes.get(tensor.start..end))
            .ok_or_else(|| Error::config(format!("the model file ends inside the tensor {}", tensor.name)))
    }
}
