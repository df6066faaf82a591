//! GGUF's typed values and the little-endian reader of its header.

use crate::error::{Error, Result};

/// A metadata value of a GGUF file.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaValue {
    /// Any unsigned integer type.
    UInt(u64),
    /// Any signed integer type.
    Int(i64),
    /// `f32` or `f64`.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A UTF-8 string (invalid bytes replaced).
    Text(String),
    /// An array of values of one type.
    Array(Vec<MetaValue>),
}

impl MetaValue {
    /// The value as a non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            MetaValue::UInt(v) => Some(v),
            MetaValue::Int(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The value as a number.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            MetaValue::UInt(v) => Some(v as f64),
            MetaValue::Int(v) => Some(v as f64),
            MetaValue::Float(v) => Some(v),
            _ => None,
        }
    }

    /// The value as a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            MetaValue::Bool(v) => Some(v),
            _ => None,
        }
    }

    /// The value as text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            MetaValue::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The value's items, if it is an array.
    pub fn as_array(&self) -> Option<&[MetaValue]> {
        match self {
            MetaValue::Array(items) => Some(items),
            _ => None,
        }
    }
}

/// Reads GGUF's little-endian scalars, strings and values from the start of a file.
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }

    /// How many bytes were read.
    pub(super) fn position(&self) -> usize {
        self.at
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let bytes = self
            .bytes
            .get(self.at..self.at + N)
            .ok_or_else(|| Error::config("the model file ends inside its header"))?;
        self.at += N;
        Ok(bytes.try_into().expect("N bytes"))
    }

    pub(super) fn u32(&mut self) -> Result<u32> {
        self.take().map(u32::from_le_bytes)
    }

    pub(super) fn u64(&mut self) -> Result<u64> {
        self.take().map(u64::from_le_bytes)
    }

    /// A count of items, each of which takes at least one byte of what is left.
    pub(super) fn count(&mut self) -> Result<usize> {
        let count = self.u64()?;
        match usize::try_from(count) {
            Ok(count) if count <= self.bytes.len() - self.at => Ok(count),
            _ => Err(Error::config(format!(
                "the model file's header counts {count} items, more than the file holds"
            ))),
        }
    }

    pub(super) fn string(&mut self) -> Result<String> {
        let len = self.count()?;
        let bytes = &self.bytes[self.at..self.at + len];
        self.at += len;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }

    /// A value: its type id, then the value.
    pub(super) fn value(&mut self) -> Result<MetaValue> {
        let kind = self.u32()?;
        self.value_of(kind)
    }

    fn value_of(&mut self, kind: u32) -> Result<MetaValue> {
        Ok(match kind {
            0 => MetaValue::UInt(self.take::<1>()?[0].into()),
            1 => MetaValue::Int((self.take::<1>()?[0] as i8).into()),
            2 => MetaValue::UInt(u16::from_le_bytes(self.take()?).into()),
            3 => MetaValue::Int(i16::from_le_bytes(self.take()?).into()),
            4 => MetaValue::UInt(self.u32()?.into()),
            5 => MetaValue::Int(i32::from_le_bytes(self.take()?).into()),
            6 => MetaValue::Float(f32::from_le_bytes(self.take()?).into()),
            7 => MetaValue::Bool(self.take::<1>()?[0] != 0),
            8 => MetaValue::Text(self.string()?),
            9 => {
                let item_kind = self.u32()?;
                if item_kind == 9 {
                    return Err(Error::config("the model file nests metadata arrays"));
                }
                let count = self.count()?;
                let items = (0..count)
                    .map(|_| self.value_of(item_kind))
                    .collect::<Result<_>>()?;
                MetaValue::Array(items)
            }
            10 => MetaValue::UInt(self.u64()?),
            11 => MetaValue::Int(i64::from_le_bytes(self.take()?)),
            12 => MetaValue::Float(f64::from_le_bytes(self.take()?)),
            other => {
                return Err(Error::config(format!(
                    "the model file has a metadata value of unknown type {other}"
                )))
            }
        })
    }
}
