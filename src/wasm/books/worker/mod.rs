//! Lectern's ingestion worker: its entries in the books module
//! ([`worker_entry`], run by `lectern_worker.js`, the Worker's own script
//! shipped at the package root), and the books module's side of it in the
//! page ([`ingest_worker`], with `worker_host.js`, which starts it).

pub(super) mod ingest_worker;
pub(super) mod worker_embedder;
mod worker_entry;
