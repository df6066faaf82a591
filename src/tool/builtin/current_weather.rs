//! `current_weather`: the weather now at a place, from Open-Meteo (no API
//! key). A place name is geocoded first (`{geocodingBaseUrl}/v1/search`),
//! then the forecast API's `current` block read (`{baseUrl}/v1/forecast`).
//! Requests go through the [`Transport`] seam: `fetch` in the browser, any
//! transport natively. Each request that got an HTTP answer is noted for the
//! turn's egress ledger.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::{json, Map, Value};

use super::wmo::describe_weather_code;
use crate::domain::ToolDefinition;
use crate::error::{Error, Result};
use crate::http::{HttpRequest, Transport};
use crate::json::from_json::FromJson;
use crate::provider::host_of;
use crate::tool::{Tool, ToolContext, ToolResult};

/// The tool's name.
pub const CURRENT_WEATHER: &str = "current_weather";

/// The service its requests go to, as the egress ledger names it.
pub const OPEN_METEO: &str = "open-meteo";

/// Open-Meteo's forecast API.
pub const DEFAULT_WEATHER_BASE_URL: &str = "https://api.open-meteo.com";

/// Open-Meteo's geocoding API.
pub const DEFAULT_GEOCODING_BASE_URL: &str = "https://geocoding-api.open-meteo.com";

/// The `current` variables asked of the forecast API.
const CURRENT_VARIABLES: &str =
    "temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m";

/// Most characters of an error body the model reads.
const MAX_ERROR_CHARS: usize = 200;

/// `weather` in `Lectern.open`'s options: where `current_weather` sends.
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WeatherSettings {
    /// The forecast API's origin (default [`DEFAULT_WEATHER_BASE_URL`]).
    #[serde(default = "default_base_url")]
    pub base_url: String,
    /// The geocoding API's origin (default [`DEFAULT_GEOCODING_BASE_URL`]).
    #[serde(default = "default_geocoding_base_url")]
    pub geocoding_base_url: String,
}

fn default_base_url() -> String {
    DEFAULT_WEATHER_BASE_URL.to_owned()
}

fn default_geocoding_base_url() -> String {
    DEFAULT_GEOCODING_BASE_URL.to_owned()
}

impl Default for WeatherSettings {
    fn default() -> Self {
        WeatherSettings {
            base_url: default_base_url(),
            geocoding_base_url: default_geocoding_base_url(),
        }
    }
}

impl WeatherSettings {
    /// Both base URLs are `http://` or `https://` URLs (a `ConfigError` otherwise).
    pub fn check(&self) -> Result<()> {
        for (name, url) in [
            ("weather.baseUrl", &self.base_url),
            ("weather.geocodingBaseUrl", &self.geocoding_base_url),
        ] {
            let scheme_ok = url.starts_with("http://") || url.starts_with("https://");
            if !scheme_ok || host_of(url).is_empty() {
                return Err(Error::config(format!(
                    "{name} must be an http:// or https:// URL, got {url:?}"
                )));
            }
        }
        Ok(())
    }

    fn forecast_url(&self, latitude: f64, longitude: f64) -> String {
        format!(
            "{}/v1/forecast?latitude={latitude}&longitude={longitude}&current={CURRENT_VARIABLES}&timezone=auto",
            self.base_url.trim_end_matches('/')
        )
    }

    fn geocoding_url(&self, place: &str) -> String {
        format!(
            "{}/v1/search?name={}&count=1&language=en&format=json",
            self.geocoding_base_url.trim_end_matches('/'),
            encode_query_value(place)
        )
    }
}

/// The tool's definition: name, description and the schema of
/// `{ place?, latitude?, longitude? }` (a place, or both coordinates).
pub fn current_weather_definition() -> ToolDefinition {
    ToolDefinition {
        name: CURRENT_WEATHER.to_owned(),
        description: "The current weather at a place (temperature, feels-like temperature, humidity, \
                      precipitation, wind and conditions), from Open-Meteo. Give a place name, e.g. \
                      Oslo or Paris, France; or latitude and longitude instead."
            .to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {
                "place": {
                    "type": "string",
                    "minLength": 1,
                    "description": "A city, town or postal code, e.g. Oslo. Needed unless latitude and longitude are given."
                },
                "latitude": {
                    "type": "number",
                    "minimum": -90,
                    "maximum": 90,
                    "description": "WGS84 latitude in degrees; give it with longitude instead of a place."
                },
                "longitude": {
                    "type": "number",
                    "minimum": -180,
                    "maximum": 180,
                    "description": "WGS84 longitude in degrees; give it with latitude instead of a place."
                }
            },
            "additionalProperties": false
        }),
    }
}

/// The built-in `current_weather` tool over a transport. Read-only, never cached.
pub struct CurrentWeather {
    definition: ToolDefinition,
    settings: WeatherSettings,
    transport: Rc<dyn Transport>,
}

impl CurrentWeather {
    /// The tool, sending to `settings`' URLs through `transport`.
    pub fn new(settings: WeatherSettings, transport: Rc<dyn Transport>) -> Self {
        CurrentWeather {
            definition: current_weather_definition(),
            settings,
            transport,
        }
    }
}

impl Tool for CurrentWeather {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn execute(&self, arguments: Value, context: ToolContext) -> LocalBoxFuture<'static, ToolResult> {
        let settings = self.settings.clone();
        let transport = self.transport.clone();
        Box::pin(async move { current_weather(&settings, transport.as_ref(), arguments, &context).await })
    }

    fn builtin(&self) -> bool {
        true
    }

    fn read_only(&self) -> bool {
        true
    }
}

/// Where the model asked about.
enum Location {
    /// A name to geocode.
    Named(String),
    /// Coordinates (and the place's name, if the model gave one too).
    At {
        latitude: f64,
        longitude: f64,
        label: Option<String>,
    },
}

/// The place or the coordinates `arguments` (valid against the schema) give.
fn location_of(arguments: &Value) -> std::result::Result<Location, String> {
    let place = arguments
        .get("place")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned);
    let latitude = arguments.get("latitude").and_then(Value::as_f64);
    let longitude = arguments.get("longitude").and_then(Value::as_f64);
    match (latitude, longitude, place) {
        (Some(latitude), Some(longitude), label) => Ok(Location::At {
            latitude,
            longitude,
            label,
        }),
        (Some(_), None, _) | (None, Some(_), _) => {
            Err("Invalid arguments: latitude and longitude go together: give both, or a place".to_owned())
        }
        (None, None, Some(place)) => Ok(Location::Named(place)),
        (None, None, None) => {
            Err("Invalid arguments: give a place (e.g. Oslo), or latitude and longitude".to_owned())
        }
    }
}

/// The weather now at the place `arguments` names, as the tool's result:
/// `{ place, time, timezone, temperature, apparentTemperature,
/// relativeHumidity, precipitation, windSpeed, weatherCode, weather }`. A
/// place nobody knows, an HTTP error, a failed connection or a body that is
/// not Open-Meteo's JSON is an error message the model reads.
pub async fn current_weather(
    settings: &WeatherSettings,
    transport: &dyn Transport,
    arguments: Value,
    context: &ToolContext,
) -> ToolResult {
    let (place, latitude, longitude) = match location_of(&arguments)? {
        Location::At {
            latitude,
            longitude,
            label,
        } => {
            let mut place = Map::new();
            if let Some(name) = label {
                place.insert("name".into(), name.into());
            }
            place.insert("latitude".into(), latitude.into());
            place.insert("longitude".into(), longitude.into());
            (place, latitude, longitude)
        }
        Location::Named(name) => {
            let url = settings.geocoding_url(&name);
            let found = get_json(transport, &url, context).await?;
            geocoded(&found, &name).map_err(|e| tool_error(&e, &url))?
        }
    };
    let url = settings.forecast_url(latitude, longitude);
    let forecast = get_json(transport, &url, context).await?;
    current_of(&forecast, place).map_err(|e| tool_error(&e, &url))
}

/// The first result of a geocoding answer: the place (name, country, region,
/// coordinates, time zone) and its coordinates; `NotFound` when there is none.
fn geocoded(found: &Value, name: &str) -> Result<(Map<String, Value>, f64, f64)> {
    let results = match found.get("results") {
        // Open-Meteo leaves `results` out when nothing matched.
        None | Some(Value::Null) => return Err(Error::not_found("place", name)),
        Some(Value::Array(results)) => results,
        Some(_) => return Err(Error::protocol("geocoding answer: results is not a list")),
    };
    let Some(first) = results.first() else {
        return Err(Error::not_found("place", name));
    };
    let coordinate = |field: &str| {
        first
            .get(field)
            .and_then(Value::as_f64)
            .ok_or_else(|| Error::protocol(format!("geocoding answer: the first result has no {field}")))
    };
    let (latitude, longitude) = (coordinate("latitude")?, coordinate("longitude")?);
    let mut place = Map::new();
    for (field, key) in [("name", "name"), ("country", "country"), ("admin1", "region")] {
        if let Some(text) = first.get(field).and_then(Value::as_str).filter(|t| !t.is_empty()) {
            place.insert(key.into(), text.into());
        }
    }
    place.insert("latitude".into(), latitude.into());
    place.insert("longitude".into(), longitude.into());
    if let Some(zone) = first.get("timezone").and_then(Value::as_str) {
        place.insert("timezone".into(), zone.into());
    }
    Ok((place, latitude, longitude))
}

/// The tool's result from a forecast answer's `current` and `current_units`.
fn current_of(forecast: &Value, place: Map<String, Value>) -> Result<Value> {
    let current = forecast
        .get("current")
        .and_then(Value::as_object)
        .ok_or_else(|| Error::protocol("forecast answer has no current block"))?;
    let time = current
        .get("time")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::protocol("forecast answer: current has no time"))?;
    let empty = Map::new();
    let units = forecast
        .get("current_units")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let reading = |field: &str| {
        json!({
            "value": current.get(field).cloned().unwrap_or(Value::Null),
            "unit": units.get(field).cloned().unwrap_or(Value::Null),
        })
    };
    let code = current.get("weather_code").and_then(Value::as_u64);
    let weather = match code {
        Some(code) => describe_weather_code(code).unwrap_or("Unknown weather code"),
        None => "Unknown",
    };
    Ok(json!({
        "place": place,
        "time": time,
        "timezone": forecast.get("timezone").cloned().unwrap_or(Value::Null),
        "temperature": reading("temperature_2m"),
        "apparentTemperature": reading("apparent_temperature"),
        "relativeHumidity": reading("relative_humidity_2m"),
        "precipitation": reading("precipitation"),
        "windSpeed": reading("wind_speed_10m"),
        "weatherCode": code,
        "weather": weather,
    }))
}

/// GETs `url` and reads its JSON body. A request that got an answer is noted
/// for the egress ledger; every failure is the message the model reads.
async fn get_json(
    transport: &dyn Transport,
    url: &str,
    context: &ToolContext,
) -> std::result::Result<Value, String> {
    let request = HttpRequest::get(url);
    let method = request.method.clone();
    let fetched = async {
        let response = transport.send(request, &context.cancel).await?;
        context.note_request(CURRENT_WEATHER, OPEN_METEO, &method, url);
        let status = response.status;
        let text = response.text().await?;
        if !(200..300).contains(&status) {
            // Open-Meteo explains a refusal as `{ "error": true, "reason": "…" }`.
            let reason = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|body| body.get("reason").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or(text);
            return Err(Error::Api {
                status,
                body: excerpt(&reason),
            });
        }
        serde_json::from_str::<Value>(&text)
            .map_err(|e| Error::protocol(format!("the answer is not JSON ({e}): {}", excerpt(&text))))
    };
    fetched.await.map_err(|e| tool_error(&e, url))
}

/// The message the model reads for a failure at `url`: the error's kind and what happened.
fn tool_error(error: &Error, url: &str) -> String {
    let host = host_of(url);
    match error {
        Error::NotFound { id, .. } => format!(
            "No place named {id:?} was found. Try another spelling, a larger place nearby, or give latitude and longitude."
        ),
        Error::Api { status, body } => format!("{}: {host} answered HTTP {status}: {body}", error.name()),
        Error::Protocol { message } => format!("{}: {host}: {message}", error.name()),
        Error::Connection { message } => format!("{}: {host}: {message}", error.name()),
        other => format!("{}: {other}", other.name()),
    }
}

/// The first [`MAX_ERROR_CHARS`] characters of `text`, trimmed.
fn excerpt(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(MAX_ERROR_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// `value` percent-encoded for a URL's query (everything but RFC 3986's unreserved characters).
fn encode_query_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_open_meteos_urls_with_the_place_encoded() {
        let settings = WeatherSettings {
            base_url: "http://127.0.0.1:9/".into(),
            geocoding_base_url: DEFAULT_GEOCODING_BASE_URL.into(),
        };
        assert_eq!(
            settings.geocoding_url("São Paulo & co"),
            "https://geocoding-api.open-meteo.com/v1/search?name=S%C3%A3o%20Paulo%20%26%20co&count=1&language=en&format=json"
        );
        assert_eq!(
            settings.forecast_url(59.91273, -10.5),
            "http://127.0.0.1:9/v1/forecast?latitude=59.91273&longitude=-10.5&current=temperature_2m,\
             relative_humidity_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m&timezone=auto"
        );
    }

    #[test]
    fn base_urls_must_be_http() {
        assert!(WeatherSettings::default().check().is_ok());
        let bad = WeatherSettings {
            geocoding_base_url: "ftp://example.com".into(),
            ..WeatherSettings::default()
        };
        let err = bad.check().unwrap_err();
        assert_eq!(err.name(), "ConfigError");
        assert!(err.to_string().contains("weather.geocodingBaseUrl"), "{err}");
    }

    #[test]
    fn a_place_or_both_coordinates() {
        assert!(matches!(location_of(&json!({"place": " Oslo "})), Ok(Location::Named(p)) if p == "Oslo"));
        assert!(matches!(
            location_of(&json!({"latitude": 1.5, "longitude": 2})),
            Ok(Location::At { latitude, longitude, label: None }) if latitude == 1.5 && longitude == 2.0
        ));
        let lone = location_of(&json!({"latitude": 1.5, "place": "x"}))
            .err()
            .unwrap();
        assert!(
            lone.starts_with("Invalid arguments: latitude and longitude go together"),
            "{lone}"
        );
        let none = location_of(&json!({"place": "  "})).err().unwrap();
        assert!(none.starts_with("Invalid arguments: give a place"), "{none}");
    }

    #[test]
    fn an_unknown_weather_code_is_said_so() {
        let forecast = json!({"current": {"time": "2026-01-01T00:00", "weather_code": 42}});
        let result = current_of(&forecast, Map::new()).unwrap();
        assert_eq!(result["weather"], "Unknown weather code");
        assert_eq!(result["temperature"], json!({"value": null, "unit": null}));
    }
}
