//! The seam of who builds a book's missing vector index: this thread
//! ([`BuildHere`]: native code, tests, the ingestion worker itself), someone
//! else later (the page's ingestion worker, which attaches a snapshot), or
//! nobody ([`NoIndexBuilder`]: such books are searched exactly).

use crate::retrieval::index::settings::IndexSettings;
use crate::retrieval::index::{build_index, BuiltIndex};
use crate::retrieval::vectors::vector::VectorSet;

/// Who builds a book's missing vector index.
pub trait IndexBuilder {
    /// The index of `vectors` and its snapshot, built now on the calling
    /// thread; `None` when this builder does not build here (or there are too
    /// few vectors for `settings`).
    fn build_now(&self, vectors: &VectorSet, settings: IndexSettings) -> Option<BuiltIndex>;

    /// Whether an index not built now will be built elsewhere and attached
    /// later (`Library::attach_snapshot`); meanwhile the book is searched exactly.
    fn builds_later(&self) -> bool;
}

/// Builds on the calling thread, when a book is added or loaded without a
/// usable snapshot. Never in a page, where one synchronous build would
/// freeze it: the page's module does not construct it, so leaves the builder out.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildHere;

impl IndexBuilder for BuildHere {
    fn build_now(&self, vectors: &VectorSet, settings: IndexSettings) -> Option<BuiltIndex> {
        build_index(vectors, settings)
    }

    fn builds_later(&self) -> bool {
        false
    }
}

/// Builds no index: books without a usable snapshot are searched exactly
/// (a library's default, and a page without a worker).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoIndexBuilder;

impl IndexBuilder for NoIndexBuilder {
    fn build_now(&self, _: &VectorSet, _: IndexSettings) -> Option<BuiltIndex> {
        None
    }

    fn builds_later(&self) -> bool {
        false
    }
}
