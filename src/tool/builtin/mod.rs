//! Built-in tools: those a host turns on by name (`builtinTools:
//! ['current_datetime']`), and `search_book`, which every book conversation offers.

use crate::error::{Error, Result};

mod current_datetime;
mod search_book;
mod zones;

pub use current_datetime::{current_datetime_definition, CurrentDatetime, CURRENT_DATETIME};
pub use search_book::{SearchBookTool, DEFAULT_TOP_K, SEARCH_BOOK};
pub use zones::{unknown_zone, FixedZones, TimeZones, ZonedTime};

/// The names `builtinTools` accepts.
pub const BUILTIN_TOOLS: [&str; 1] = [CURRENT_DATETIME];

/// Checks that `builtinTools` names only known built-in tools.
pub fn check_builtin_tools(names: &[String]) -> Result<()> {
    match names.iter().find(|name| !BUILTIN_TOOLS.contains(&name.as_str())) {
        Some(unknown) => Err(Error::config(format!(
            "builtinTools: unknown built-in tool {unknown:?} (known: {})",
            BUILTIN_TOOLS.join(", ")
        ))),
        None => Ok(()),
    }
}
