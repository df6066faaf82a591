//! Context per model step and the agent loop's own cost per step, natively
//! over the memory store: `cargo bench --bench context`.

#[path = "../tests/support/mod.rs"]
mod support;

use support::bench::{agent_loop, context, figures};

use std::rc::Rc;
use std::time::Instant;

use futures::executor::block_on;
use lectern::runtime::time::ManualClock;
use lectern::storage::MemoryStore;

fn main() {
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64() * 1000.0;
    println!("Context per step, native (memory store; median of 200)");
    let store = MemoryStore::new();
    for line in block_on(context::run(&store, &now, 200, "native")) {
        println!("{line}");
    }
    println!("Agent loop and store, native (memory store)");
    let (step, line) = block_on(agent_loop::per_step(
        Rc::new(MemoryStore::new()),
        Rc::new(ManualClock::new(1_700_000_000_000.0)),
        &now,
        200,
    ));
    println!("{line}\n{}", figures::figure("agent_step", "native", step));
    let (append, load, lines) = block_on(agent_loop::store_figures(&MemoryStore::new(), &now, 200));
    for line in lines {
        println!("{line}");
    }
    println!("{}", figures::figure("store_append", "native", append));
    println!("{}", figures::figure("store_load_1000", "native", load));
}
