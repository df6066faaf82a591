//! Writing zip archives, for the tests of the EPUB reader (its unit tests and
//! `tests/`): stored or deflated entries with true CRC-32s, computed bit by
//! bit apart from the reader's table, and a declared size that may lie, to
//! play a zip bomb. The library itself never writes a zip.

/// One file of an archive to write.
#[derive(Debug, Clone, Copy)]
pub struct ZipEntry<'a> {
    /// Its path in the archive.
    pub name: &'a str,
    /// Its bytes.
    pub content: &'a [u8],
    /// Deflated, else stored.
    pub deflate: bool,
    /// The uncompressed size to declare, if not the real one.
    pub declared_size: Option<u32>,
}

/// CRC-32 (IEEE), bit by bit: an oracle independent of the reader's table.
pub fn crc32_bitwise(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A zip archive of `entries`, in order: local headers and data, then the
/// central directory and its end record (no ZIP64, no comment).
pub fn write_zip(entries: &[ZipEntry<'_>]) -> Vec<u8> {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for entry in entries {
        let data = if entry.deflate {
            miniz_oxide::deflate::compress_to_vec(entry.content, 6)
        } else {
            entry.content.to_vec()
        };
        let offset = out.len() as u32;
        let method: u16 = if entry.deflate { 8 } else { 0 };
        let size = entry.declared_size.unwrap_or(entry.content.len() as u32);
        let mut fields = Vec::new();
        fields.extend_from_slice(&method.to_le_bytes());
        fields.extend_from_slice(&[0; 4]);
        fields.extend_from_slice(&crc32_bitwise(entry.content).to_le_bytes());
        fields.extend_from_slice(&(data.len() as u32).to_le_bytes());
        fields.extend_from_slice(&size.to_le_bytes());
        fields.extend_from_slice(&(entry.name.len() as u16).to_le_bytes());
        out.extend_from_slice(&[0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0]);
        out.extend_from_slice(&fields);
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(entry.name.as_bytes());
        out.extend_from_slice(&data);
        central.extend_from_slice(&[0x50, 0x4b, 0x01, 0x02, 20, 0, 20, 0, 0, 0]);
        central.extend_from_slice(&fields);
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(entry.name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&[0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}
