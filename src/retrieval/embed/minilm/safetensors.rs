//! Reads tensors from a `.safetensors` file: an 8-byte little-endian header
//! length, a JSON header giving each tensor's dtype, shape and byte range
//! (from the end of the header), then the data. The file is read through
//! [`FileBytes`], one tensor (or a piece of one) at a time, so that in the
//! browser it stays in the JS buffer it was fetched into and never whole in
//! wasm memory.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::json::from_json::FromJson;

/// The longest header read (the MiniLM file's is 11 KB).
const MAX_HEADER: usize = 16 << 20;

#[derive(Debug, FromJson)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: (usize, usize),
}

/// Where a file's bytes are: in memory, or elsewhere (a JS buffer) and
/// copied out range by range.
pub trait FileBytes {
    /// The file's length.
    fn len(&self) -> usize;
    /// Whether it is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes `start..end`, `None` if the range is not inside the file.
    fn read(&self, start: usize, end: usize) -> Option<Cow<'_, [u8]>>;
}

impl FileBytes for &[u8] {
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }

    fn read(&self, start: usize, end: usize) -> Option<Cow<'_, [u8]>> {
        self.get(start..end).map(Cow::Borrowed)
    }
}

/// Floats converted per read while making a half-precision copy (256 KB).
const PIECE: usize = 1 << 16;

/// A parsed file, reading tensors from its bytes.
pub struct Safetensors<'a> {
    file: &'a dyn FileBytes,
    data_start: usize,
    entries: HashMap<String, Entry>,
}

impl<'a> Safetensors<'a> {
    /// The file in `file`; a `Config` error if it is not a safetensors file.
    pub fn parse(file: &'a dyn FileBytes) -> Result<Self> {
        let malformed = |why: &str| Error::config(format!("the model file is not a safetensors file: {why}"));
        let length = file
            .read(0, 8)
            .ok_or_else(|| malformed("shorter than its header"))?;
        let length = u64::from_le_bytes(
            length
                .as_ref()
                .try_into()
                .map_err(|_| malformed("no header length"))?,
        ) as usize;
        if length > MAX_HEADER || length > file.len() - 8 {
            return Err(malformed("its header length is past the end"));
        }
        let header = file.read(8, 8 + length).ok_or_else(|| malformed("no header"))?;
        let mut header: HashMap<String, serde_json::Value> =
            serde_json::from_slice(&header).map_err(|e| malformed(&e.to_string()))?;
        header.remove("__metadata__");
        let mut entries = HashMap::with_capacity(header.len());
        for (name, value) in header {
            let entry: Entry =
                crate::json::value_de::from_value(value).map_err(|e| malformed(&format!("{name}: {e}")))?;
            entries.insert(name, entry);
        }
        Ok(Safetensors {
            file,
            data_start: 8 + length,
            entries,
        })
    }

    /// The `f32` tensor `name`, which must have this `shape`; a `Config`
    /// error naming it if it is missing, of another type or shape, or cut off.
    pub fn f32s(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let (start, count) = self.find(name, shape)?;
        let mut floats = Vec::with_capacity(count);
        self.read_f32s(name, start, count, &mut |piece| floats.extend_from_slice(piece))?;
        Ok(floats)
    }

    /// [`Safetensors::f32s`] converted by `convert`, a piece at a time: no
    /// `f32` copy of the whole tensor is made.
    pub fn converted<T>(&self, name: &str, shape: &[usize], convert: fn(f32) -> T) -> Result<Vec<T>> {
        let (start, count) = self.find(name, shape)?;
        let mut values = Vec::with_capacity(count);
        self.read_f32s(name, start, count, &mut |piece| {
            values.extend(piece.iter().map(|&f| convert(f)))
        })?;
        Ok(values)
    }

    /// Where tensor `name`'s data starts in the file, and its element count.
    fn find(&self, name: &str, shape: &[usize]) -> Result<(usize, usize)> {
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
        let inside = end.checked_sub(start) == Some(count * 4)
            && self.data_start.saturating_add(end) <= self.file.len();
        if !inside {
            return Err(wrong(format!("lies outside the file ({start}..{end})")));
        }
        Ok((self.data_start + start, count))
    }

    /// The `count` floats from byte `start`, to `each` in pieces of at most [`PIECE`].
    fn read_f32s(&self, name: &str, start: usize, count: usize, each: &mut dyn FnMut(&[f32])) -> Result<()> {
        let mut piece = Vec::with_capacity(count.min(PIECE));
        for first in (0..count).step_by(PIECE) {
            let floats = PIECE.min(count - first);
            let at = start + first * 4;
            let bytes = self
                .file
                .read(at, at + floats * 4)
                .ok_or_else(|| Error::config(format!("the model's tensor {name} could not be read")))?;
            piece.clear();
            piece.extend(
                bytes
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            );
            each(&piece);
        }
        Ok(())
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
        let bytes = bytes.as_slice();
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
    fn a_tensor_of_several_pieces_reads_whole_and_converts() {
        let count = PIECE * 2 + 7;
        let data: Vec<u8> = (0..count).flat_map(|i| (i as f32).to_le_bytes()).collect();
        let header = format!(
            r#"{{"big":{{"dtype":"F32","shape":[{count}],"data_offsets":[0,{}]}}}}"#,
            count * 4
        );
        let bytes = file(&header, &data);
        let bytes = bytes.as_slice();
        let file = Safetensors::parse(&bytes).unwrap();
        let floats = file.f32s("big", &[count]).unwrap();
        assert!(floats.iter().enumerate().all(|(i, &f)| f == i as f32));
        let halves = file.converted("big", &[count], |f| f as u32).unwrap();
        assert_eq!(halves.len(), count);
        assert_eq!(halves[count - 1], (count - 1) as u32);
    }

    #[test]
    fn bytes_that_are_not_safetensors_are_a_config_error() {
        for bytes in [vec![1, 2], file("{not json", &[]), vec![255; 16]] {
            let Err(error) = Safetensors::parse(&bytes.as_slice()) else {
                panic!("parsed");
            };
            assert_eq!(error.name(), "ConfigError", "{error}");
        }
    }
}
