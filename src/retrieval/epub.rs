//! EPUB ingestion (not built yet): refused with a clear error.

use super::pages::Page;
use crate::error::{Error, Result};

/// The pages of an EPUB file. Not built yet: always a `ConfigError` saying so.
pub fn pages_from_epub(_bytes: &[u8]) -> Result<Vec<Page>> {
    Err(Error::config(
        "EPUB ingestion is not built yet; pass the book's text or pages instead",
    ))
}
