//! `current_datetime`: the current date and time in an IANA time zone (or the reader's).

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use super::zones::TimeZones;
use crate::domain::ToolDefinition;
use crate::runtime::time::Clock;
use crate::tool::{Tool, ToolContext, ToolResult};

/// The tool's name.
pub const CURRENT_DATETIME: &str = "current_datetime";

/// The built-in `current_datetime` tool: `{ timeZone?: string }` →
/// `{ iso, timeZone, date, time, weekday, utcOffset }`. Never cached; an
/// unknown zone is a tool error the model reads.
pub struct CurrentDatetime {
    definition: ToolDefinition,
    zones: Rc<dyn TimeZones>,
    clock: Rc<dyn Clock>,
}

/// The tool's definition: name, description and the schema of `{ timeZone? }`.
pub fn current_datetime_definition() -> ToolDefinition {
    ToolDefinition {
        name: CURRENT_DATETIME.to_owned(),
        description: "The current date and time. Give an IANA time zone (e.g. Europe/Paris, \
                      Asia/Tokyo) for the time there; without one, the reader's own time zone."
            .to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {
                "timeZone": {
                    "type": "string",
                    "description": "An IANA time zone name, e.g. Europe/Paris. Omit it for the reader's zone."
                }
            },
            "additionalProperties": false
        }),
    }
}

impl CurrentDatetime {
    /// The tool, reading time from `clock` and zones from `zones`.
    pub fn new(zones: Rc<dyn TimeZones>, clock: Rc<dyn Clock>) -> Self {
        CurrentDatetime {
            definition: current_datetime_definition(),
            zones,
            clock,
        }
    }

    /// The time now in the zone `arguments` names (`timeZone`), or the reader's.
    pub fn now(&self, arguments: &Value) -> ToolResult {
        let zone = match arguments.get("timeZone").and_then(Value::as_str).map(str::trim) {
            Some(zone) if !zone.is_empty() => zone.to_owned(),
            _ => self.zones.reader_zone(),
        };
        self.zones
            .format(self.clock.now_ms(), &zone)
            .and_then(|time| serde_json::to_value(time).map_err(|e| e.to_string()))
    }
}

impl Tool for CurrentDatetime {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn execute(&self, arguments: Value, _context: ToolContext) -> LocalBoxFuture<'static, ToolResult> {
        let result = self.now(&arguments);
        Box::pin(async move { result })
    }

    fn builtin(&self) -> bool {
        true
    }

    fn read_only(&self) -> bool {
        true
    }
}
