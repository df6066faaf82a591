//! The shared fixtures in `../shared/fixtures` (or `$LECTERN_SHARED/fixtures`):
//! the test book and real MiniLM embeddings. Tests that need them skip, saying
//! so, when a clone has no `../shared`.
#![allow(dead_code)]

use std::path::PathBuf;

use lectern::retrieval::vectors::vector::VectorSet;

/// The shared fixtures folder, if present.
pub fn fixtures_dir() -> Option<PathBuf> {
    let base = std::env::var_os("LECTERN_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = base.join("fixtures");
    dir.is_dir().then_some(dir)
}

/// The text of *The Man Who Was Thursday*, or `None` (with a note on stderr).
pub fn thursday() -> Option<String> {
    let path = fixtures_dir()?.join("books/chesterton-thursday.txt");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) => {
            eprintln!("SKIPPED: {} not found (no ../shared fixtures)", path.display());
            None
        }
    }
}

/// Converts an IEEE half-precision float.
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
    let exponent = (bits >> 10) & 0x1f;
    let mantissa = (bits & 0x3ff) as f32;
    match exponent {
        0 => sign * mantissa * 2f32.powi(-24),
        0x1f => {
            if mantissa == 0.0 {
                sign * f32::INFINITY
            } else {
                f32::NAN
            }
        }
        e => sign * (1.0 + mantissa / 1024.0) * 2f32.powi(e as i32 - 15),
    }
}

/// Decodes little-endian f16 rows of `dims` values.
pub fn decode_f16(bytes: &[u8], dims: usize, rows: usize) -> VectorSet {
    let mut set = VectorSet::new(dims);
    let mut row = vec![0.0f32; dims];
    for r in 0..rows {
        for (d, value) in row.iter_mut().enumerate() {
            let at = (r * dims + d) * 2;
            *value = f16_to_f32(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
        }
        set.push(&row);
    }
    set
}

/// The first `rows` MiniLM vectors (384-d), or `None` (with a note on stderr).
pub fn minilm(rows: usize) -> Option<VectorSet> {
    let path = fixtures_dir()?.join("embeddings/gutenberg-minilm-384.f16");
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(_) => {
            eprintln!("SKIPPED: {} not found (no ../shared fixtures)", path.display());
            return None;
        }
    };
    let available = bytes.len() / (384 * 2);
    Some(decode_f16(&bytes, 384, rows.min(available)))
}

#[test]
fn half_floats_decode() {
    assert_eq!(f16_to_f32(0x3c00), 1.0);
    assert_eq!(f16_to_f32(0xc000), -2.0);
    assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
    assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
}
