//! A book's vectors as stored: one row of `dims` floats per chunk, back to back.

/// A book's vectors as stored (no index, no quantised copy: retrieval's
/// `VectorSet` adds those).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredVectors {
    dims: usize,
    flat: Vec<f32>,
}

impl StoredVectors {
    /// No vectors yet, of dimension `dims` (0: a book without vectors).
    pub fn empty(dims: usize) -> Self {
        StoredVectors {
            dims,
            flat: Vec::new(),
        }
    }

    /// Rows over flat data; `flat.len()` must be a multiple of `dims` (> 0).
    pub fn from_flat(dims: usize, flat: Vec<f32>) -> Self {
        assert!(
            dims > 0 && flat.len() % dims == 0,
            "flat vector data must hold whole vectors"
        );
        StoredVectors { dims, flat }
    }

    /// Appends a row; its length must be `dims`.
    pub fn push(&mut self, row: &[f32]) {
        assert_eq!(row.len(), self.dims, "vector of the wrong dimension");
        self.flat.extend_from_slice(row);
    }

    /// The dimension (0 for a book without vectors).
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.flat.len().checked_div(self.dims).unwrap_or(0)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.flat[i * self.dims..(i + 1) * self.dims]
    }

    /// Every row, back to back.
    pub fn flat(&self) -> &[f32] {
        &self.flat
    }
}
