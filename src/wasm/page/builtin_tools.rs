//! `builtinTools` in `Lectern.open`'s options: the built-in tools to register.
//!
//! A built-in tool's work (for `current_datetime`, the `Intl` time zones; for
//! `current_weather`, Open-Meteo's requests over `fetch` and the reading of
//! their answers) is in a chunk fetched at its first call ([`split_off!`]):
//! the page's module holds only their definitions, and a page whose model
//! never asks the time or the weather never loads it.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::split_off::split_off;
use crate::agent::Agent;
use crate::domain::ToolDefinition;
use crate::error::Result;
use crate::tool::builtin::{
    check_builtin_tools, current_datetime_definition, current_weather, current_weather_definition,
    CurrentDatetime, WeatherSettings, CURRENT_DATETIME, CURRENT_WEATHER,
};
use crate::tool::{Tool, ToolContext, ToolResult};
use crate::web::{BrowserClock, FetchTransport, IntlZones};

/// Registers the built-in tools `names` asks for (names checked first);
/// `current_weather` sends to `weather`'s URLs.
pub fn register_builtin_tools(agent: &Agent, names: &[String], weather: &WeatherSettings) -> Result<()> {
    check_builtin_tools(names)?;
    if names.iter().any(|name| name == CURRENT_DATETIME) {
        agent.register_tool(Rc::new(CurrentDatetimeInChunk {
            definition: current_datetime_definition(),
        }))?;
    }
    if names.iter().any(|name| name == CURRENT_WEATHER) {
        agent.register_tool(Rc::new(CurrentWeatherInChunk {
            definition: current_weather_definition(),
            settings: weather.clone(),
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

/// `current_weather` as the agent sees it, its work run in the chunk.
struct CurrentWeatherInChunk {
    definition: ToolDefinition,
    settings: WeatherSettings,
}

impl Tool for CurrentWeatherInChunk {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn execute(&self, arguments: Value, context: ToolContext) -> LocalBoxFuture<'static, ToolResult> {
        let settings = self.settings.clone();
        Box::pin(async move {
            current_weather_now(settings, arguments, context)
                .await
                .map_err(|e| e.to_string())?
        })
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
    /// `current_weather`'s work: Open-Meteo's answer for the place `arguments` names, over `fetch`.
    fn current_weather_now(
        settings: WeatherSettings,
        arguments: Value,
        context: ToolContext,
    ) -> Result<ToolResult> {
        Ok(current_weather(&settings, &FetchTransport, arguments, &context).await)
    }
);
