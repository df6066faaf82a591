//! Small tools for tests, each with the open object schema
//! (`{"type": "object"}`) unless a test needs its own: one that answers at
//! once, one that counts its runs, one that never settles, one that sleeps
//! on the manual clock. Each is an [`FnTool`], so `with_retries`,
//! `with_timeout_ms`, `read_only` and the cache settings still apply.

use std::cell::Cell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use lectern::runtime::time::{Clock, ManualClock};
use lectern::tool::{FnTool, ToolContext, ToolResult};
use serde_json::{json, Value};

/// The closure type of the tools made here.
pub type Run = Box<dyn Fn(Value, ToolContext) -> LocalBoxFuture<'static, ToolResult>>;

/// The schema of a tool that takes any object.
pub fn any_object() -> Value {
    json!({"type": "object"})
}

/// A tool whose every run answers `answer` at once.
pub fn answering(name: &str, description: &str, answer: Value) -> FnTool<Run> {
    FnTool::new(
        name,
        description,
        any_object(),
        Box::new(move |_, _| {
            let answer = answer.clone();
            Box::pin(async move { Ok(answer) })
        }),
    )
}

/// A tool that answers `answer` at once and adds one to `runs` for every run.
pub fn counting(name: &str, description: &str, runs: Rc<Cell<u32>>, answer: Value) -> FnTool<Run> {
    FnTool::new(
        name,
        description,
        any_object(),
        Box::new(move |_, _| {
            runs.set(runs.get() + 1);
            let answer = answer.clone();
            Box::pin(async move { Ok(answer) })
        }),
    )
}

/// A tool whose runs start and never settle.
pub fn hanging(name: &str, description: &str) -> FnTool<Run> {
    FnTool::new(
        name,
        description,
        any_object(),
        Box::new(|_, _| Box::pin(futures::future::pending())),
    )
}

/// A tool that sleeps `ms` on `clock` (its sleep starts when the run does),
/// then answers `answer`.
pub fn sleeping(name: &str, description: &str, clock: &ManualClock, ms: u64, answer: Value) -> FnTool<Run> {
    let clock = clock.clone();
    FnTool::new(
        name,
        description,
        any_object(),
        Box::new(move |_, _| {
            let (sleep, answer) = (clock.sleep(ms), answer.clone());
            Box::pin(async move {
                sleep.await;
                Ok(answer)
            })
        }),
    )
}
