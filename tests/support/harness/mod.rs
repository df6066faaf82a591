//! The harness of the native agent tests: one [`TestAgent`] (an agent over a
//! memory store, a scripted model and a manual clock, with its conversation
//! and the events it emitted), the tools tests give it, and the approval
//! fixtures. A file a concept:
//!
//! - `test_agent`: [`TestAgent`] and its [`Builder`];
//! - `events`: [`EventLog`], a sink that keeps what it is handed;
//! - `tools`: small tools (answering, counting, hanging, sleeping);
//! - `approvals`: the approval policies and decisions, and the file-tool
//!   [`approvals::World`] whose pages reload over one store;
//! - `books`: the agent over a small book ("Thursday" in three pages).
#![allow(dead_code)]

pub mod approvals;
pub mod books;
pub mod events;
pub mod test_agent;
pub mod tools;

// Crates that mount `support` without using the harness (the benches) leave these unused.
#[allow(unused_imports)]
pub use events::EventLog;
#[allow(unused_imports)]
pub use test_agent::{Builder, TestAgent, START_MS};
