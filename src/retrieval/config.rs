//! How the host configures books: the embedder and the retrieval settings.

use serde::{Deserialize, Deserializer};

use crate::json::from_json::FromJson;
use crate::json::tagged::Tagged;

use crate::retrieval::embed::openai_embedder::OpenAiEmbedderSettings;

/// How a book conversation gets passages of its book.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, FromJson)]
#[serde(rename_all = "camelCase")]
pub enum RetrievalStrategy {
    /// The model decides when to call `search_book`.
    #[default]
    ToolUse,
    /// The user's message is searched before each turn and the passages go
    /// into the system message; `search_book` is not offered, the other tools are.
    AlwaysRetrieve,
}

/// `embedder: { kind: ... }` (`'none'`, `'hashed'`, `'openai'`, `'custom'`,
/// `'minilm'`; default: none, books are searched lexically).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum EmbedderConfig {
    /// No embedder: books get no vectors and are searched with BM25 (the default).
    #[default]
    None,
    /// The offline hashed n-gram embedder.
    Hashed(HashedSettings),
    /// An OpenAI-compatible `/embeddings` endpoint.
    Openai(OpenAiEmbedderSettings),
    /// A host function `(texts) => Promise<Float32Array[]>` (attached by the JS boundary).
    Custom(CustomEmbedderSettings),
    /// all-MiniLM-L6-v2 computed in the ingestion module, from files the host serves.
    Minilm(MiniLmSettings),
}

// Read by its own `Deserialize` (a tagged enum), inside records too.
crate::from_json_via_serde!(EmbedderConfig);

impl<'de> Deserialize<'de> for EmbedderConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let tagged = Tagged::read(deserializer, "kind")?;
        match tagged.tag.as_str() {
            "none" => tagged.fields().map(|_: NoSettings| EmbedderConfig::None),
            "hashed" => tagged.fields().map(EmbedderConfig::Hashed),
            "openai" => tagged.fields().map(EmbedderConfig::Openai),
            "custom" => tagged.fields().map(EmbedderConfig::Custom),
            "minilm" => tagged.fields().map(EmbedderConfig::Minilm),
            _ => Err(tagged.unknown(&["none", "hashed", "openai", "custom", "minilm"])),
        }
    }
}

/// `{ kind: 'none' }` takes no other field.
#[derive(FromJson)]
#[serde(deny_unknown_fields)]
struct NoSettings {}

/// Settings of the hashed embedder.
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HashedSettings {
    /// Vector dimension (default 1024).
    #[serde(default = "default_dims")]
    pub dimensions: usize,
}

fn default_dims() -> usize {
    1024
}

impl Default for HashedSettings {
    fn default() -> Self {
        HashedSettings {
            dimensions: default_dims(),
        }
    }
}

/// Settings of a host-function embedder.
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CustomEmbedderSettings {
    /// The model's name, recorded with each book.
    pub model: String,
    /// Texts per call (default 32).
    #[serde(default = "default_custom_batch")]
    pub batch_size: usize,
}

fn default_custom_batch() -> usize {
    32
}

/// Settings of the built-in all-MiniLM-L6-v2 embedder: where its two files are.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MiniLmSettings {
    /// URL of the model's `model.safetensors` (f32, 90 MB).
    pub model_url: String,
    /// URL of its `vocab.txt`.
    pub vocab_url: String,
    /// Keep the files in the Cache API (`lectern-models-v1`) and read them
    /// from there next time (default true).
    #[serde(default = "default_true")]
    pub cache: bool,
}

fn default_true() -> bool {
    true
}

/// `retrieval: { strategy?, chunkChars?, overlapChars?, pageChars?, indexMinChunks? }`.
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RetrievalSettings {
    /// `toolUse` (default) or `alwaysRetrieve`.
    #[serde(default)]
    pub strategy: RetrievalStrategy,
    /// Chunk size in characters (default 800).
    #[serde(default = "default_chunk")]
    pub chunk_chars: usize,
    /// Overlap in characters (default 150).
    #[serde(default = "default_overlap")]
    pub overlap_chars: usize,
    /// Synthetic page size in characters (default 2000).
    #[serde(default = "default_page")]
    pub page_chars: usize,
    /// Books of at least this many chunks get an HNSW index, and searches
    /// over at least this many eligible chunks use it (default 8,192,
    /// [`crate::retrieval::index::settings::INDEX_MIN_VECTORS`]: where it starts to win in Chromium).
    #[serde(default = "default_index_min")]
    pub index_min_chunks: usize,
    /// The most tokens (estimated: `domain::estimate_tokens`) of passages one
    /// retrieval adds to the prompt — the book passages of the system message,
    /// a `search_book` result — best first and at least one (default 1,500;
    /// `null`: no limit).
    #[serde(default = "default_context_tokens")]
    pub max_context_tokens: Option<usize>,
    /// The reader's page and the ones before it, this many in all, always in a
    /// book conversation's system message (default 2; 0 to 4).
    #[serde(default = "default_reader_pages")]
    pub reader_pages: u32,
    /// Passages `alwaysRetrieve` finds for the user's message (default 10; 1 to 20).
    #[serde(default = "default_passages")]
    pub passages: usize,
    /// A book question whose model fails before writing anything (network
    /// off, endpoint down, a local model not loaded) is answered with quotes
    /// from the book instead of an error (default true).
    #[serde(default = "default_true")]
    pub quote_fallback: bool,
    /// The system message numbers its passages and asks for the passage's
    /// number after each sentence (default true). Each sentence is checked
    /// either way; a small model that does not cite reads fewer tokens without it.
    #[serde(default = "default_true")]
    pub citations: bool,
}

fn default_context_tokens() -> Option<usize> {
    Some(crate::retrieval::reader::context::DEFAULT_CONTEXT_TOKENS)
}
fn default_reader_pages() -> u32 {
    crate::retrieval::reader::context::DEFAULT_READER_PAGES
}
fn default_passages() -> usize {
    crate::retrieval::reader::context::DEFAULT_PASSAGES
}

fn default_chunk() -> usize {
    800
}
fn default_overlap() -> usize {
    150
}
fn default_page() -> usize {
    2000
}
fn default_index_min() -> usize {
    crate::retrieval::index::settings::INDEX_MIN_VECTORS
}

impl Default for RetrievalSettings {
    fn default() -> Self {
        RetrievalSettings {
            strategy: RetrievalStrategy::default(),
            chunk_chars: default_chunk(),
            overlap_chars: default_overlap(),
            page_chars: default_page(),
            index_min_chunks: default_index_min(),
            max_context_tokens: default_context_tokens(),
            reader_pages: default_reader_pages(),
            passages: default_passages(),
            quote_fallback: true,
            citations: true,
        }
    }
}

impl RetrievalSettings {
    /// The index settings: the defaults, with `index_min_chunks`.
    pub fn indexing(&self) -> crate::retrieval::index::settings::IndexSettings {
        crate::retrieval::index::settings::IndexSettings::with_min_vectors(self.index_min_chunks)
    }

    /// The chunking part.
    pub fn chunking(&self) -> crate::retrieval::text::chunk::ChunkSettings {
        crate::retrieval::text::chunk::ChunkSettings {
            chunk_chars: self.chunk_chars,
            overlap_chars: self.overlap_chars,
            page_chars: self.page_chars,
        }
    }
}
