//! Built-in tools: those a host turns on by name (`builtinTools:
//! ['current_datetime']`), and `search_book`, which every book conversation offers.

mod current_datetime;
mod search_book;
mod zones;

pub use current_datetime::{CurrentDatetime, CURRENT_DATETIME};
pub use search_book::{SearchBookTool, DEFAULT_TOP_K, SEARCH_BOOK};
pub use zones::{unknown_zone, FixedZones, TimeZones, ZonedTime};

/// The names `builtinTools` accepts.
pub const BUILTIN_TOOLS: [&str; 1] = [CURRENT_DATETIME];
