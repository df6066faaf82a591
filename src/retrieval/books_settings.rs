//! What the page hands the books module when it loads it: where the books
//! are stored, the embedder and the retrieval options as the host gave them,
//! and where ingestion runs.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::json::from_json::FromJson;
use crate::retrieval::config::{EmbedderConfig, RetrievalSettings};

/// The books module's part of `Lectern.open`'s options.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct BooksSettings {
    /// The IndexedDB database (`None`: books in memory).
    pub db_name: Option<String>,
    /// How long an upgrade waits for other tabs' connections.
    pub blocked_timeout_ms: Option<u64>,
    /// Option `embedder` as JSON text (its `embed` function goes beside it).
    pub embedder: String,
    /// Option `retrieval` as JSON text.
    pub retrieval: String,
    /// Whether to try Lectern's worker (option `worker`).
    pub worker: bool,
    /// Option `workerUrl`.
    pub worker_url: Option<String>,
}

impl BooksSettings {
    /// The embedder the options describe.
    pub fn embedder_config(&self) -> Result<EmbedderConfig> {
        serde_json::from_str(&self.embedder).map_err(|e| Error::config(format!("embedder: {e}")))
    }

    /// The retrieval options (the defaults when none were given).
    pub fn retrieval_settings(&self) -> Result<RetrievalSettings> {
        match self.retrieval.trim() {
            "" | "null" => Ok(RetrievalSettings::default()),
            text => serde_json::from_str(text).map_err(|e| Error::config(format!("retrieval: {e}"))),
        }
    }
}
