//! A new book on its way into the library: prepared (pages, chunks, the
//! lexical index and vectors), carried to and from a Worker, as a job.

pub mod ingest_job;
pub mod new_book;
pub mod prepare;
pub mod prepared_wire;
