//! `builtinTools` in `Lectern.open`'s options: the built-in tools to register.

use std::rc::Rc;

use crate::agent::Agent;
use crate::error::{Error, Result};
use crate::tool::builtin::{CurrentDatetime, BUILTIN_TOOLS, CURRENT_DATETIME};
use crate::web::{BrowserClock, IntlZones};

/// Checks the names of `builtinTools`: each must be a built-in tool.
pub fn check_builtin_tools(names: &[String]) -> Result<()> {
    match names.iter().find(|name| !BUILTIN_TOOLS.contains(&name.as_str())) {
        Some(unknown) => Err(Error::config(format!(
            "builtinTools: unknown built-in tool {unknown:?} (known: {})",
            BUILTIN_TOOLS.join(", ")
        ))),
        None => Ok(()),
    }
}

/// Registers the built-in tools `names` asks for (names checked first).
pub fn register_builtin_tools(agent: &Agent, names: &[String]) -> Result<()> {
    check_builtin_tools(names)?;
    if names.iter().any(|name| name == CURRENT_DATETIME) {
        let tool = CurrentDatetime::new(Rc::new(IntlZones), Rc::new(BrowserClock));
        agent.register_tool(Rc::new(tool))?;
    }
    Ok(())
}
