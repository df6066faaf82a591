//! [`EventLog`]: the events an agent emitted, kept in order for assertions.

use std::cell::RefCell;
use std::rc::Rc;

use lectern::events::{Event, EventKind, EventSink};
use serde_json::Value;

/// Every event handed to its sinks, in order. Clones share one log.
#[derive(Clone, Default)]
pub struct EventLog(Rc<RefCell<Vec<Event>>>);

impl EventLog {
    /// A sink that appends every event to this log.
    pub fn sink(&self) -> EventSink {
        let log = self.0.clone();
        EventSink::new(move |event| log.borrow_mut().push(event))
    }

    /// What each event reported.
    pub fn kinds(&self) -> Vec<EventKind> {
        self.0.borrow().iter().map(|e| e.kind.clone()).collect()
    }

    /// Each event's `type`, as the host sees it (`stepStart`, `textDelta`, ...).
    pub fn types(&self) -> Vec<String> {
        self.json()
            .iter()
            .map(|e| e["type"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Each whole event (conversation and turn ids included) as JSON.
    pub fn json(&self) -> Vec<Value> {
        self.0
            .borrow()
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect()
    }
}
