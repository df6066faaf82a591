//! The zip container of an EPUB, read from its central directory: stored and
//! deflated entries only. Nothing the archive declares is trusted: offsets
//! and lengths are bounds-checked, each entry inflates under a hard output
//! limit whatever size it claims, all reads together share a budget, and
//! every entry's CRC-32 is checked.

use std::cell::Cell;
use std::collections::HashMap;

use crate::error::{Error, Result};

/// The error for a broken EPUB: `ConfigError: malformed EPUB: ...`.
pub(crate) fn malformed(what: impl std::fmt::Display) -> Error {
    Error::config(format!("malformed EPUB: {what}"))
}

/// `len` bytes at `at`, if the input has them (no arithmetic can overflow).
fn span(bytes: &[u8], at: usize, len: usize) -> Option<&[u8]> {
    bytes.get(at..at.checked_add(len)?)
}

fn u16_at(bytes: &[u8], at: usize) -> Result<usize> {
    span(bytes, at, 2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)
        .ok_or_else(|| malformed("truncated zip structure"))
}

fn u32_at(bytes: &[u8], at: usize) -> Result<u32> {
    span(bytes, at, 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| malformed("truncated zip structure"))
}

/// The CRC-32 (IEEE 802.3, as zip uses) of `data`. The table is built per
/// call (2,048 steps, nothing beside inflating) rather than stored: 1 KB less wasm.
pub fn crc32(data: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, entry) in table.iter_mut().enumerate() {
        *entry = (0..8).fold(i as u32, |c, _| {
            if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            }
        });
    }
    !data.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

/// One entry of the central directory.
struct Entry {
    method: usize,
    crc: u32,
    compressed: usize,
    local: usize,
}

/// A zip archive's entries, and what may still be inflated from it.
pub(crate) struct Zip<'a> {
    bytes: &'a [u8],
    entries: HashMap<String, Entry>,
    max_entry: usize,
    budget: Cell<usize>,
}

impl<'a> Zip<'a> {
    /// Reads the central directory; each entry may inflate to at most
    /// `max_entry` bytes, all reads together to `max_total`.
    pub(crate) fn open(bytes: &'a [u8], max_entry: usize, max_total: usize) -> Result<Self> {
        if bytes.len() < 22 {
            return Err(malformed("too short to be a zip file"));
        }
        let search_from = bytes.len().saturating_sub(22 + 65_535);
        let eocd = (search_from..=bytes.len() - 22)
            .rev()
            .find(|&i| bytes[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])
            .ok_or_else(|| malformed("no zip end-of-central-directory record (not a zip file)"))?;
        let count = u16_at(bytes, eocd + 10)?;
        let mut at = u32_at(bytes, eocd + 16)? as usize;
        let mut entries = HashMap::new();
        for _ in 0..count {
            if span(bytes, at, 4) != Some(&[0x50, 0x4b, 0x01, 0x02]) {
                return Err(malformed("bad zip central directory entry"));
            }
            let name_len = u16_at(bytes, at + 28)?;
            let name = span(bytes, at + 46, name_len).ok_or_else(|| malformed("truncated file name"))?;
            let entry = Entry {
                method: u16_at(bytes, at + 10)?,
                crc: u32_at(bytes, at + 16)?,
                compressed: u32_at(bytes, at + 20)? as usize,
                local: u32_at(bytes, at + 42)? as usize,
            };
            entries.insert(String::from_utf8_lossy(name).into_owned(), entry);
            at += 46 + name_len + u16_at(bytes, at + 30)? + u16_at(bytes, at + 32)?;
        }
        Ok(Zip {
            bytes,
            entries,
            max_entry,
            budget: Cell::new(max_total),
        })
    }

    /// Whether the archive has an entry `name`.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// The raw (compressed or stored) bytes of `entry`.
    fn data(&self, name: &str, entry: &Entry) -> Result<&'a [u8]> {
        let bytes = self.bytes;
        if span(bytes, entry.local, 4) != Some(&[0x50, 0x4b, 0x03, 0x04]) {
            return Err(malformed(format!("bad local header for {name}")));
        }
        let header = 30 + u16_at(bytes, entry.local + 26)? + u16_at(bytes, entry.local + 28)?;
        entry
            .local
            .checked_add(header)
            .and_then(|start| span(bytes, start, entry.compressed))
            .ok_or_else(|| malformed(format!("{name} is truncated")))
    }

    /// The contents of entry `name`, inflated under the limits and CRC-checked.
    pub(crate) fn read(&self, name: &str) -> Result<Vec<u8>> {
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| malformed(format!("missing file {name}")))?;
        let data = self.data(name, entry)?;
        let budget = self.budget.get();
        let limit = self.max_entry.min(budget);
        let too_large = || {
            if limit == self.max_entry {
                malformed(format!(
                    "{name} is larger than the limit of {limit} bytes for one file"
                ))
            } else {
                let total = self.max_entry.max(budget);
                malformed(format!(
                    "{name} makes the book larger than the limit of {total} bytes in all"
                ))
            }
        };
        let out = match entry.method {
            0 if data.len() > limit => return Err(too_large()),
            0 => data.to_vec(),
            8 => miniz_oxide::inflate::decompress_to_vec_with_limit(data, limit).map_err(|e| {
                if e.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput {
                    too_large()
                } else {
                    malformed(format!("{name} does not inflate: {e}"))
                }
            })?,
            other => {
                return Err(malformed(format!(
                    "{name} uses unsupported compression method {other}"
                )))
            }
        };
        if crc32(&out) != entry.crc {
            return Err(malformed(format!(
                "{name} fails its CRC-32 check (corrupt archive)"
            )));
        }
        self.budget.set(budget - out.len());
        Ok(out)
    }

    /// Entry `name` as text (invalid UTF-8 replaced).
    pub(crate) fn text(&self, name: &str) -> Result<String> {
        Ok(String::from_utf8_lossy(&self.read(name)?).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_of_known_inputs() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"The quick brown fox jumps over the lazy dog"), 0x414F_A339);
    }
}
