//! The scenario both engines are measured on, shared by the `yrs` and `automerge` crates (each
//! includes this file with `#[path]`, so the two write byte-for-byte the same messages).
//!
//! A conversation is a list of message maps `{id, seq, role, content, createdAt}` with about 300
//! characters of content each; reading positions are a map of book id to a position string (last
//! writer wins per key). The measured document holds [`MESSAGES`] messages; a day offline is
//! [`OFFLINE_MESSAGES`] messages and [`OFFLINE_POSITIONS`] position writes on each of two devices.

/// Messages in the measured conversation.
pub const MESSAGES: u32 = 1000;
/// Messages each device appends during a day offline.
pub const OFFLINE_MESSAGES: u32 = 200;
/// Position writes each device makes during a day offline (over five books).
pub const OFFLINE_POSITIONS: u32 = 50;
/// The conversation's id in the document.
pub const CONV: &str = "conv-1";
/// Characters of content per message.
const CONTENT_CHARS: usize = 300;

/// About 300 characters of pseudo-random words (deflate ratio ~1.7×, less compressible than
/// English prose at ~2.5–3×), distinct per message and device so compression cannot collapse
/// repeated text.
pub fn content(i: u32, dev: u64) -> String {
    let mut x: u64 = ((u64::from(i) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ dev.wrapping_mul(0xBF58_476D_1CE4_E5B9))
        | 1;
    let mut s = format!("Message {i} from device {dev}: ");
    while s.len() < CONTENT_CHARS {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = 2 + (x % 8) as usize;
        for k in 0..len {
            s.push((b'a' + ((x >> (8 + 5 * k)) % 26) as u8) as char);
        }
        s.push(' ');
    }
    s.truncate(CONTENT_CHARS);
    s
}

/// Message `i`'s id as device `dev` writes it.
pub fn message_id(dev: u64, i: u32) -> String {
    format!("{dev:x}-{i}")
}

/// Message `i`'s role: user and assistant in turn.
pub fn role(i: u32) -> &'static str {
    if i.is_multiple_of(2) {
        "user"
    } else {
        "assistant"
    }
}

/// Message `i`'s creation time (ms since the epoch).
pub fn created_at(i: u32) -> f64 {
    1_764_000_000_000.0 + f64::from(i)
}

/// The book the `i`-th position write is for (five books in turn).
pub fn position_book(i: u32) -> String {
    format!("book-{}", i % 5)
}

/// The `i`-th position written by device `dev`.
pub fn position_value(i: u32, dev: u64) -> String {
    format!("epubcfi(/6/{}!/4/2/{}) by {dev}", i, i * 7)
}

/// A hostile input: the first half of a good update.
pub fn truncated(good: &[u8]) -> Vec<u8> {
    good[..good.len() / 2].to_vec()
}

/// A hostile input: 500 bytes of noise.
pub fn garbage() -> Vec<u8> {
    (0..500u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}

/// A hostile input: a good update with every 37th byte from `from` flipped (`from` skips the
/// format's header, so the damage reaches the content).
pub fn bit_flipped(good: &[u8], from: usize) -> Vec<u8> {
    let mut bytes = good.to_vec();
    for i in (from..bytes.len()).step_by(37) {
        bytes[i] ^= 0x5a;
    }
    bytes
}
