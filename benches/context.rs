//! Context per model step, natively over the memory store: `cargo bench --bench context`.

#[path = "../tests/bench_support/context.rs"]
mod context;

use std::time::Instant;

use futures::executor::block_on;
use lectern::storage::MemoryStore;

fn main() {
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64() * 1000.0;
    println!("Context per step, native (memory store; median of 200)");
    let store = MemoryStore::new();
    for line in block_on(context::run(&store, &now, 200)) {
        println!("{line}");
    }
}
