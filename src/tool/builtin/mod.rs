//! Built-in tools: those a host turns on by name (`builtinTools:
//! ['current_datetime', 'current_weather']`), and `search_book`, which every
//! book conversation offers.

use std::rc::Rc;

use crate::error::{Error, Result};
use crate::http::Transport;
use crate::runtime::time::Clock;
use crate::tool::Tool;

mod current_datetime;
mod current_weather;
mod search_book;
mod wmo;
mod zones;

pub use current_datetime::{current_datetime_definition, CurrentDatetime, CURRENT_DATETIME};
pub use current_weather::{
    current_weather, current_weather_definition, CurrentWeather, WeatherSettings, CURRENT_WEATHER,
    DEFAULT_GEOCODING_BASE_URL, DEFAULT_WEATHER_BASE_URL, OPEN_METEO,
};
pub use search_book::{SearchBookTool, DEFAULT_TOP_K, SEARCH_BOOK};
pub use wmo::describe_weather_code;
pub use zones::{unknown_zone, FixedZones, TimeZones, ZonedTime};

/// The names `builtinTools` accepts.
pub const BUILTIN_TOOLS: [&str; 2] = [CURRENT_DATETIME, CURRENT_WEATHER];

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

/// What the built-in tools run on: time zones and a clock for
/// `current_datetime`, a transport and Open-Meteo's URLs for `current_weather`.
pub struct BuiltinSeams {
    /// `current_datetime`'s zones.
    pub zones: Rc<dyn TimeZones>,
    /// `current_datetime`'s clock.
    pub clock: Rc<dyn Clock>,
    /// `current_weather`'s HTTP.
    pub transport: Rc<dyn Transport>,
    /// `current_weather`'s URLs (`weather` in the options).
    pub weather: WeatherSettings,
}

/// The built-in tools `names` asks for (names checked first), in
/// [`BUILTIN_TOOLS`] order, over `seams`. The page's module registers its own
/// stand-ins for the same names, whose work is split off (`wasm/page/builtin_tools.rs`).
pub fn builtin_tools(names: &[String], seams: &BuiltinSeams) -> Result<Vec<Rc<dyn Tool>>> {
    check_builtin_tools(names)?;
    let wanted = |name: &str| names.iter().any(|n| n == name);
    let mut tools: Vec<Rc<dyn Tool>> = Vec::new();
    if wanted(CURRENT_DATETIME) {
        tools.push(Rc::new(CurrentDatetime::new(
            seams.zones.clone(),
            seams.clock.clone(),
        )));
    }
    if wanted(CURRENT_WEATHER) {
        tools.push(Rc::new(CurrentWeather::new(
            seams.weather.clone(),
            seams.transport.clone(),
        )));
    }
    Ok(tools)
}
