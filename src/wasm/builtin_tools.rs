//! `builtinTools` in `Lectern.open`'s options: the built-in tools to register.

use std::rc::Rc;

use crate::agent::Agent;
use crate::error::Result;
use crate::tool::builtin::{check_builtin_tools, CurrentDatetime, CURRENT_DATETIME};
use crate::web::{BrowserClock, IntlZones};

/// Registers the built-in tools `names` asks for (names checked first).
pub fn register_builtin_tools(agent: &Agent, names: &[String]) -> Result<()> {
    check_builtin_tools(names)?;
    if names.iter().any(|name| name == CURRENT_DATETIME) {
        let tool = CurrentDatetime::new(Rc::new(IntlZones), Rc::new(BrowserClock));
        agent.register_tool(Rc::new(tool))?;
    }
    Ok(())
}
