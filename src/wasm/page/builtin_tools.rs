//! `builtinTools` in `Lectern.open`'s options: the built-in tools to register.
//!
//! A built-in tool's work (for `current_datetime`, the `Intl` time zones) is
//! in a chunk fetched at its first call ([`split_off!`]): the page's module
//! holds only its definition, and a page whose model never asks the time
//! never loads it.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::split_off::split_off;
use crate::agent::Agent;
use crate::domain::ToolDefinition;
use crate::error::Result;
use crate::tool::builtin::{
    check_builtin_tools, current_datetime_definition, CurrentDatetime, CURRENT_DATETIME,
};
use crate::tool::{Tool, ToolContext, ToolResult};
use crate::web::{BrowserClock, IntlZones};

/// Registers the built-in tools `names` asks for (names checked first).
pub fn register_builtin_tools(agent: &Agent, names: &[String]) -> Result<()> {
    check_builtin_tools(names)?;
    if names.iter().any(|name| name == CURRENT_DATETIME) {
        agent.register_tool(Rc::new(CurrentDatetimeInChunk {
            definition: current_datetime_definition(),
        }))?;
    }
    Ok(())
}

/// `current_datetime` as the agent sees it, its work run in the chunk.
struct CurrentDatetimeInChunk {
    definition: ToolDefinition,
}

impl Tool for CurrentDatetimeInChunk {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn execute(&self, arguments: Value, _context: ToolContext) -> LocalBoxFuture<'static, ToolResult> {
        Box::pin(async move { current_datetime_now(arguments).await.map_err(|e| e.to_string())? })
    }

    fn builtin(&self) -> bool {
        true
    }

    fn read_only(&self) -> bool {
        true
    }
}

split_off!(
    builtin_tools,
    /// `current_datetime`'s work: the time now in the zone `arguments` names.
    fn current_datetime_now(arguments: Value) -> Result<ToolResult> {
        Ok(CurrentDatetime::new(Rc::new(IntlZones), Rc::new(BrowserClock)).now(&arguments))
    }
);
