//! How a book's vector index is built and searched, and from what size a
//! book gets one.

/// Books smaller than this get no index, and searches with fewer eligible
/// chunks are exact (the default of [`IndexSettings::min_vectors`](IndexSettings::min_vectors), option
/// `retrieval.indexMinChunks`). Measured (`npm run bench`, MiniLM vectors,
/// k = 10, p50, ef 128), exact against index in headless Chromium: 0.040 /
/// 0.100 ms at 1,024 vectors, 0.080 / 0.135 at 2,048, 0.150 / 0.175 at
/// 4,096, 0.320 / 0.220 at 8,192 (natively 0.043 / 0.070, 0.082 / 0.086,
/// 0.161 / 0.109, 0.327 / 0.148): in the page the index starts to win at
/// about 5,000 vectors, so smaller books are not worth its build and memory.
pub const INDEX_MIN_VECTORS: usize = 8192;

/// How the index is built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexSettings {
    /// Sets of fewer vectors get no index ([`INDEX_MIN_VECTORS`] by default).
    pub min_vectors: usize,
    /// Candidate list size while building (quality vs build time).
    pub ef_construction: usize,
    /// Candidates examined per query (at least `k`); they are re-ranked exactly.
    pub ef_search: usize,
    /// Seed of the level generator (fixed: the same vectors give the same index).
    pub seed: u64,
    /// Links kept per node on layer zero (at most 64).
    pub zero_links: usize,
    /// Links kept per node on the upper layers (at most 32).
    pub upper_links: usize,
    /// Whether the build selects links with the HNSW heuristic (else the nearest).
    pub heuristic: bool,
    /// With the heuristic, whether the links it prunes fill the free slots.
    pub keep_pruned: bool,
    /// The share of the nodes of a layer that are also on the layer above.
    pub ml: f32,
}

/// Measured on 10,000, 20,000 and 53,901 MiniLM vectors (docs/figures.md, the ANN
/// benchmark): the heuristic without its pruned links and `ml` = 1/32 (the
/// paper's layer sizes) build several times faster than `instant-distance`'s
/// defaults and walk fewer nodes per query. 16 links on layer zero keep
/// vectors, int8 copy and graph under 1.3× the `f32` vectors at 53,901 (32
/// made it 1.306×) and, with ef 128, recall@10 at 0.95 or more on the
/// hardest query set (20,000 vectors, held-out queries: 0.953; ef 96 gave 0.940).
impl Default for IndexSettings {
    fn default() -> Self {
        IndexSettings {
            min_vectors: INDEX_MIN_VECTORS,
            ef_construction: 100,
            ef_search: 128,
            seed: 0x1ec7e4,
            zero_links: 16,
            upper_links: 16,
            heuristic: true,
            keep_pruned: false,
            ml: 1.0 / 32.0,
        }
    }
}

impl IndexSettings {
    /// The defaults, for sets of at least `min` vectors.
    pub fn with_min_vectors(min: usize) -> Self {
        IndexSettings {
            min_vectors: min,
            ..IndexSettings::default()
        }
    }
}
