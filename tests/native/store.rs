//! The storage conformance suite against the in-memory store.

use crate::support::conformance;

use lectern::storage::MemoryStore;

#[test]
fn memory_store_conforms() {
    futures::executor::block_on(conformance::run_all(
        || async { MemoryStore::new() },
        |name| eprintln!("memory store: {name}"),
    ));
}
