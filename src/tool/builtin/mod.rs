//! Built-in tools a host turns on by name (`builtinTools: ['current_datetime']`).

mod current_datetime;
mod zones;

pub use current_datetime::{CurrentDatetime, CURRENT_DATETIME};
pub use zones::{unknown_zone, FixedZones, TimeZones, ZonedTime};

/// The names `builtinTools` accepts.
pub const BUILTIN_TOOLS: [&str; 1] = [CURRENT_DATETIME];
