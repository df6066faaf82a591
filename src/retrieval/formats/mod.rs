//! The files Lectern reads and writes: EPUB, zip archives and the export bundle.

pub mod bundle;
pub mod epub;
pub mod zip;
pub mod zip_writer;
