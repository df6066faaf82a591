//! Reads tensors from a `.safetensors` file: an 8-byte little-endian header
//! length, a JSON header giving each tensor's dtype, shape and byte range
//! (from the end of the header), then the data.

use std::collections::HashMap;

use serde::Deserialize;

use crate::error::{Error, Result};

/// The longest header read (the MiniLM file's is 11 KB).
const MAX_HEADER: usize = 16 << 20;

#[derive(Debug, Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: (usize, usize),
}

/// A parsed file, borrowing its bytes.
#[derive(Debug)]
pub struct Safetensors<'a> {
    data: &'a [u8],
    entries: HashMap<String, Entry>,
}

impl<'a> Safetensors<'a> {
    /// The file in `bytes`; a `Config` error if it is not a safetensors file.
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let malformed = |why: &str| Error::config(format!("the model file is not a safetensors file: {why}"));
        let length = bytes
            .get(..8)
            .ok_or_else(|| malformed("shorter than its header"))?;
        let length =
            u64::from_le_bytes(length.try_into().map_err(|_| malformed("no header length"))?) as usize;
        if length > MAX_HEADER || length > bytes.len() - 8 {
            return Err(malformed("its header length is past the end"));
        }
        let mut header: HashMap<String, serde_json::Value> =
            serde_json::from_slice(&bytes[8..8 + length]).map_err(|e| malformed(&e.to_string()))?;
        header.remove("__metadata__");
        let mut entries = HashMap::with_capacity(header.len());
        for (name, value) in header {
            let entry: Entry =
                serde_json::from_value(value).map_err(|e| malformed(&format!("{name}: {e}")))?;
            entries.insert(name, entry);
        }
        Ok(Safetensors {
            data: &bytes[8 + length..],
            entries,
        })
    }

    /// The `f32` tensor `name`, which must have this `shape`; a `Config`
    /// error naming it if it is missing, of another type or shape, or cut off.
    pub fn f32s(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let wrong = |why: String| Error::config(format!("the model's tensor {name} {why}"));
        let entry = self.entries.get(name).ok_or_else(|| wrong("is missing".into()))?;
        if entry.dtype != "F32" || entry.shape != shape {
            return Err(wrong(format!(
                "is {} {:?}, not F32 {shape:?}",
                entry.dtype, entry.shape
            )));
        }
        let (start, end) = entry.data_offsets;
        let count: usize = shape.iter().product();
        let bytes = self
            .data
            .get(start..end)
            .filter(|b| b.len() == count * 4)
            .ok_or_else(|| wrong(format!("lies outside the file ({start}..{end})")))?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend(header.as_bytes());
        bytes.extend(data);
        bytes
    }

    #[test]
    fn it_reads_a_tensor_and_names_what_is_wrong() {
        let data: Vec<u8> = [1.0f32, 2.0, 3.0].iter().flat_map(|f| f.to_le_bytes()).collect();
        let header = r#"{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"cut":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;
        let bytes = file(header, &data);
        let file = Safetensors::parse(&bytes).unwrap();
        assert_eq!(file.f32s("w", &[3]).unwrap(), [1.0, 2.0, 3.0]);
        assert!(file
            .f32s("w", &[1, 3])
            .unwrap_err()
            .to_string()
            .contains("not F32 [1, 3]"));
        assert!(file
            .f32s("gone", &[3])
            .unwrap_err()
            .to_string()
            .contains("gone is missing"));
        assert!(file
            .f32s("cut", &[4])
            .unwrap_err()
            .to_string()
            .contains("outside the file"));
    }

    #[test]
    fn bytes_that_are_not_safetensors_are_a_config_error() {
        for bytes in [vec![1, 2], file("{not json", &[]), vec![255; 16]] {
            let error = Safetensors::parse(&bytes).unwrap_err();
            assert_eq!(error.name(), "ConfigError", "{error}");
        }
    }
}
