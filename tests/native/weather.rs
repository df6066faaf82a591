//! `current_weather` natively, against a local HTTP server speaking
//! Open-Meteo's JSON: a place geocoded then its current weather read, the
//! coordinates asked directly, a place nobody knows, an HTTP error, a body
//! that is not JSON, a refused connection and bad arguments — each failure
//! a result the model reads — the egress ledger's entries for the tool's
//! requests, and the tool offered only when `builtinTools` names it.
//!
//! The server (a thread on a `TcpListener`) and the transport (blocking
//! HTTP/1.1 over a `TcpStream`) are this file's own: the crate's native
//! seam is the `Transport` trait, whose browser twin is `fetch`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::thread;

use crate::support::open_options::options;
use futures::future::LocalBoxFuture;
use lectern::agent::{HostFunctions, OpenOptions};
use lectern::domain::{EgressEntry, EgressPurpose};
use lectern::error::{Error, Result};
use lectern::http::{HttpRequest, HttpResponse, Transport};
use lectern::provider::scripted::ScriptedTurn;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::tool::builtin::{
    builtin_tools, BuiltinSeams, CurrentWeather, FixedZones, WeatherSettings, CURRENT_WEATHER,
    DEFAULT_GEOCODING_BASE_URL, DEFAULT_WEATHER_BASE_URL,
};
use serde_json::{json, Value};

use crate::support::harness::TestAgent;

/// Open-Meteo's geocoding answer for Oslo (`count=1`).
const OSLO: &str = r#"{"results":[{"id":3143244,"name":"Oslo","latitude":59.91273,"longitude":10.74609,
"elevation":26.0,"feature_code":"PPLC","country_code":"NO","admin1_id":3143242,"timezone":"Europe/Oslo",
"population":580000,"country_id":3144096,"country":"Norway","admin1":"Oslo"}],"generationtime_ms":0.62}"#;

/// The forecast API's answer for those coordinates, `current=…&timezone=auto`.
const OSLO_NOW: &str = r#"{"latitude":59.91,"longitude":10.75,"generationtime_ms":0.05,
"utc_offset_seconds":3600,"timezone":"Europe/Oslo","timezone_abbreviation":"GMT+1","elevation":26.0,
"current_units":{"time":"iso8601","interval":"seconds","temperature_2m":"°C","relative_humidity_2m":"%",
"apparent_temperature":"°C","precipitation":"mm","weather_code":"wmo code","wind_speed_10m":"km/h"},
"current":{"time":"2026-11-23T12:15","interval":900,"temperature_2m":3.2,"relative_humidity_2m":81,
"apparent_temperature":-0.4,"precipitation":0.2,"weather_code":61,"wind_speed_10m":11.5}}"#;

/// What the geocoding API answers when nothing matched: no `results`.
const NOWHERE: &str = r#"{"generationtime_ms":0.31}"#;

/// A route: a path prefix and the status and body it answers.
type Route = (&'static str, u16, &'static str);

/// A local HTTP server answering `routes` (first prefix that matches; 404
/// otherwise), one request per connection. Returns its origin and the
/// request lines it saw (`GET /v1/search?… `).
fn serve(routes: Vec<Route>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let head = read_head(&mut stream);
            let line = head.lines().next().unwrap_or_default().to_owned();
            let path = line.split(' ').nth(1).unwrap_or_default().to_owned();
            log.lock()
                .unwrap()
                .push(format!("{} {}", line.split(' ').next().unwrap_or_default(), path));
            let (status, body) = routes
                .iter()
                .find(|(prefix, _, _)| path.starts_with(prefix))
                .map_or((404, "not found"), |(_, status, body)| (*status, *body));
            let answer = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    (origin, seen)
}

/// Reads a request's head (through the blank line).
fn read_head(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
        head.push(byte[0]);
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// The native transport: blocking HTTP/1.1 over a `TcpStream` (plain `http://` only).
struct TcpTransport;

impl Transport for TcpTransport {
    fn send(&self, request: HttpRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<HttpResponse>> {
        let cancel = cancel.clone();
        Box::pin(async move {
            cancel.check()?;
            let rest = request
                .url
                .strip_prefix("http://")
                .ok_or_else(|| Error::config("TcpTransport speaks http:// only"))?;
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let mut stream =
                TcpStream::connect(authority).map_err(|e| Error::connection(format!("{authority}: {e}")))?;
            let head = format!(
                "{} {path} HTTP/1.1\r\nhost: {authority}\r\nconnection: close\r\n{}\r\n{}",
                request.method,
                request
                    .headers
                    .iter()
                    .map(|(k, v)| format!("{k}: {v}\r\n"))
                    .collect::<String>(),
                request.body
            );
            stream
                .write_all(head.as_bytes())
                .map_err(|e| Error::connection(e.to_string()))?;
            let mut answer = Vec::new();
            stream
                .read_to_end(&mut answer)
                .map_err(|e| Error::connection(e.to_string()))?;
            let split = answer
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .ok_or_else(|| Error::protocol("no end of headers"))?;
            let head = String::from_utf8_lossy(&answer[..split]).into_owned();
            let body = answer[split + 4..].to_vec();
            let status = head
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| Error::protocol("no status"))?;
            let headers = head
                .lines()
                .skip(1)
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                .collect();
            Ok(HttpResponse {
                status,
                headers,
                body: Box::pin(futures::stream::iter([Ok(body)])),
            })
        })
    }
}

/// Settings sending both APIs to `origin`.
fn at(origin: &str) -> WeatherSettings {
    WeatherSettings {
        base_url: origin.to_owned(),
        geocoding_base_url: origin.to_owned(),
    }
}

/// An agent offering `current_weather` against `origin`, the model making `calls` then answering.
fn weather_agent(origin: &str, calls: &[(&str, &str)]) -> TestAgent {
    let tool = CurrentWeather::new(at(origin), Rc::new(TcpTransport));
    TestAgent::builder(vec![
        ScriptedTurn::tools(calls),
        ScriptedTurn::text("Here is the weather."),
    ])
    .tool(tool)
    .build()
}

/// The tool entries of a ledger: (step, host, call id, URL).
fn tool_entries(egress: &[EgressEntry]) -> Vec<(u32, String, String, String)> {
    egress
        .iter()
        .filter(|e| e.purpose == EgressPurpose::Tool)
        .map(|e| {
            let request = e.tool_request.as_ref().expect("a tool entry names its request");
            assert_eq!(
                (request.tool_name.as_str(), request.method.as_str()),
                (CURRENT_WEATHER, "GET")
            );
            assert_eq!(
                (e.endpoint.provider.as_str(), e.model.as_str(), e.input_tokens),
                ("open-meteo", "", 0)
            );
            (
                e.step,
                e.endpoint.host.clone().unwrap_or_default(),
                request.call_id.clone(),
                request.url.clone(),
            )
        })
        .collect()
}

fn error_of(result: &str) -> String {
    let value: Value = serde_json::from_str(result).unwrap();
    value["error"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error: {result}"))
        .to_owned()
}

const FORECAST_QUERY: &str =
    "latitude=59.91273&longitude=10.74609&current=temperature_2m,relative_humidity_2m,\
                              apparent_temperature,precipitation,weather_code,wind_speed_10m&timezone=auto";

#[test]
fn a_place_is_geocoded_then_its_current_weather_read() {
    let (origin, seen) = serve(vec![("/v1/search", 200, OSLO), ("/v1/forecast", 200, OSLO_NOW)]);
    let world = weather_agent(&origin, &[(CURRENT_WEATHER, r#"{"place":"Oslo, Norway"}"#)]);
    let done = world.send("Weather in Oslo?").unwrap();
    assert_eq!(done.text, "Here is the weather.");
    let result: Value = serde_json::from_str(&world.tool_results()[0]).unwrap();
    assert_eq!(
        result,
        json!({
            "place": {
                "name": "Oslo", "country": "Norway", "region": "Oslo",
                "latitude": 59.91273, "longitude": 10.74609, "timezone": "Europe/Oslo"
            },
            "time": "2026-11-23T12:15",
            "timezone": "Europe/Oslo",
            "temperature": { "value": 3.2, "unit": "°C" },
            "apparentTemperature": { "value": -0.4, "unit": "°C" },
            "relativeHumidity": { "value": 81, "unit": "%" },
            "precipitation": { "value": 0.2, "unit": "mm" },
            "windSpeed": { "value": 11.5, "unit": "km/h" },
            "weatherCode": 61,
            "weather": "Slight rain"
        })
    );
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "GET /v1/search?name=Oslo%2C%20Norway&count=1&language=en&format=json".to_owned(),
            format!("GET /v1/forecast?{FORECAST_QUERY}"),
        ]
    );
    assert_eq!(done.tool_calls[0].error, None);
    let tool = world.agent.tools().get(CURRENT_WEATHER).unwrap();
    assert!(tool.read_only() && tool.builtin() && tool.cache_ttl_ms().is_none());
}

#[test]
fn the_egress_ledger_names_each_request_the_tool_sent() {
    let (origin, _) = serve(vec![("/v1/search", 200, OSLO), ("/v1/forecast", 200, OSLO_NOW)]);
    let world = weather_agent(&origin, &[(CURRENT_WEATHER, r#"{"place":"Oslo"}"#)]);
    let done = world.send("Weather in Oslo?").unwrap();
    let call_id = done.tool_calls[0].id.clone();
    let purposes: Vec<(u32, EgressPurpose)> = done.egress.iter().map(|e| (e.step, e.purpose)).collect();
    assert_eq!(
        purposes,
        [
            (1, EgressPurpose::Answer),
            (1, EgressPurpose::Tool),
            (1, EgressPurpose::Tool),
            (2, EgressPurpose::Answer)
        ],
        "the tool's requests come after the model call that asked for them"
    );
    let host = "127.0.0.1".to_owned();
    assert_eq!(
        tool_entries(&done.egress),
        [
            (
                1,
                host.clone(),
                call_id.clone(),
                format!("{origin}/v1/search?name=Oslo&count=1&language=en&format=json")
            ),
            (
                1,
                host,
                call_id.clone(),
                format!("{origin}/v1/forecast?{FORECAST_QUERY}")
            ),
        ]
    );
    // The model request after it carried the tool's result.
    assert_eq!(done.egress[3].tool_results[0].tool_name, CURRENT_WEATHER);
    let json = serde_json::to_value(&done.egress[1]).unwrap();
    assert_eq!(json["purpose"], "tool");
    assert_eq!(json["provider"], "open-meteo");
    assert_eq!(json["toolRequest"]["callId"], call_id.as_str());
    assert!(serde_json::to_value(&done.egress[0])
        .unwrap()
        .get("toolRequest")
        .is_none());
}

#[test]
fn coordinates_skip_geocoding() {
    let (origin, seen) = serve(vec![("/v1/forecast", 200, OSLO_NOW)]);
    let world = weather_agent(
        &origin,
        &[(
            CURRENT_WEATHER,
            r#"{"latitude":59.91273,"longitude":10.74609,"place":"home"}"#,
        )],
    );
    let done = world.send("Weather here?").unwrap();
    let result: Value = serde_json::from_str(&world.tool_results()[0]).unwrap();
    assert_eq!(
        result["place"],
        json!({"name": "home", "latitude": 59.91273, "longitude": 10.74609})
    );
    assert_eq!(result["temperature"]["value"], 3.2);
    assert_eq!(
        *seen.lock().unwrap(),
        [format!("GET /v1/forecast?{FORECAST_QUERY}")]
    );
    assert_eq!(tool_entries(&done.egress).len(), 1);
}

#[test]
fn a_place_nobody_knows_is_a_failed_result_the_model_reads() {
    let (origin, seen) = serve(vec![
        ("/v1/search", 200, NOWHERE),
        ("/v1/forecast", 200, OSLO_NOW),
    ]);
    let world = weather_agent(&origin, &[(CURRENT_WEATHER, r#"{"place":"Atlantis"}"#)]);
    let done = world.send("Weather in Atlantis?").unwrap();
    let error = error_of(&world.tool_results()[0]);
    assert!(
        error.starts_with(r#"No place named "Atlantis" was found"#),
        "{error}"
    );
    assert_eq!(done.tool_calls[0].error.as_deref(), Some(error.as_str()));
    assert_eq!(seen.lock().unwrap().len(), 1, "no forecast without a place");
    assert_eq!(
        tool_entries(&done.egress).len(),
        1,
        "the geocoding request left the device"
    );
    // An empty list reads the same.
    let (origin, _) = serve(vec![("/v1/search", 200, r#"{"results":[]}"#)]);
    let world = weather_agent(&origin, &[(CURRENT_WEATHER, r#"{"place":"Atlantis"}"#)]);
    world.send("Weather in Atlantis?").unwrap();
    assert!(error_of(&world.tool_results()[0]).starts_with("No place named"));
}

#[test]
fn an_http_error_is_an_api_error_result() {
    let (origin, _) = serve(vec![
        ("/v1/search", 200, OSLO),
        (
            "/v1/forecast",
            500,
            r#"{"error":true,"reason":"Internal server error"}"#,
        ),
    ]);
    let world = weather_agent(&origin, &[(CURRENT_WEATHER, r#"{"place":"Oslo"}"#)]);
    let done = world.send("Weather in Oslo?").unwrap();
    assert_eq!(done.text, "Here is the weather.", "the turn goes on");
    assert_eq!(
        error_of(&world.tool_results()[0]),
        "ApiError: 127.0.0.1 answered HTTP 500: Internal server error"
    );
    assert_eq!(
        tool_entries(&done.egress).len(),
        2,
        "both requests reached the server"
    );
    // A body that is not Open-Meteo's error object is quoted.
    let (origin, _) = serve(vec![("/v1/search", 503, "upstream down")]);
    let world = weather_agent(&origin, &[(CURRENT_WEATHER, r#"{"place":"Oslo"}"#)]);
    world.send("Weather in Oslo?").unwrap();
    assert_eq!(
        error_of(&world.tool_results()[0]),
        "ApiError: 127.0.0.1 answered HTTP 503: upstream down"
    );
}

#[test]
fn a_body_that_is_not_open_meteos_json_is_a_protocol_error_result() {
    let (origin, _) = serve(vec![
        ("/v1/search", 200, OSLO),
        ("/v1/forecast", 200, "<html>oops</html>"),
    ]);
    let world = weather_agent(&origin, &[(CURRENT_WEATHER, r#"{"place":"Oslo"}"#)]);
    world.send("Weather in Oslo?").unwrap();
    let error = error_of(&world.tool_results()[0]);
    assert!(
        error.starts_with("ProtocolError: 127.0.0.1: the answer is not JSON ("),
        "{error}"
    );
    assert!(error.ends_with("): <html>oops</html>"), "{error}");
    // JSON without the current block is no better.
    let (origin, _) = serve(vec![("/v1/forecast", 200, r#"{"latitude":1.0}"#)]);
    let world = weather_agent(&origin, &[(CURRENT_WEATHER, r#"{"latitude":1,"longitude":2}"#)]);
    world.send("Weather?").unwrap();
    assert_eq!(
        error_of(&world.tool_results()[0]),
        "ProtocolError: 127.0.0.1: forecast answer has no current block"
    );
}

#[test]
fn a_refused_connection_is_a_connection_error_result_and_no_ledger_entry() {
    // A port that was just free: nothing listens there.
    let origin = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let world = weather_agent(&origin, &[(CURRENT_WEATHER, r#"{"place":"Oslo"}"#)]);
    let done = world.send("Weather in Oslo?").unwrap();
    let error = error_of(&world.tool_results()[0]);
    assert!(error.starts_with("ConnectionError: 127.0.0.1: "), "{error}");
    assert!(tool_entries(&done.egress).is_empty(), "nothing left the device");
}

#[test]
fn bad_arguments_are_the_schema_error_and_send_nothing() {
    let (origin, seen) = serve(vec![("/v1/", 200, OSLO_NOW)]);
    let world = weather_agent(
        &origin,
        &[
            (CURRENT_WEATHER, r#"{"place":5}"#),
            (CURRENT_WEATHER, r#"{"place":"Oslo","units":"imperial"}"#),
            (CURRENT_WEATHER, r#"{"latitude":91,"longitude":0}"#),
            (CURRENT_WEATHER, r#"{"latitude":59.9}"#),
            (CURRENT_WEATHER, "{}"),
        ],
    );
    let done = world.send("Weather?").unwrap();
    let errors: Vec<String> = world.tool_results().iter().map(|r| error_of(r)).collect();
    assert!(
        errors.iter().all(|e| e.starts_with("Invalid arguments: ")),
        "{errors:?}"
    );
    assert!(errors[0].contains("place"), "{}", errors[0]);
    assert!(errors[1].contains("units"), "{}", errors[1]);
    assert!(errors[2].contains("latitude"), "{}", errors[2]);
    assert_eq!(
        errors[3],
        "Invalid arguments: latitude and longitude go together: give both, or a place"
    );
    assert_eq!(
        errors[4],
        "Invalid arguments: give a place (e.g. Oslo), or latitude and longitude"
    );
    assert!(seen.lock().unwrap().is_empty());
    assert!(tool_entries(&done.egress).is_empty());
}

/// What the built-in tools run on natively.
fn seams(origin: &str) -> BuiltinSeams {
    BuiltinSeams {
        zones: Rc::new(FixedZones::default()),
        clock: Rc::new(ManualClock::new(0.0)),
        transport: Rc::new(TcpTransport),
        weather: at(origin),
    }
}

/// The tools offered at the turn's first model call, with `builtinTools: names`.
fn offered_with(names: &[&str]) -> Vec<String> {
    let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    let tools = builtin_tools(&names, &seams("http://127.0.0.1:9")).unwrap();
    let world = TestAgent::builder(vec![ScriptedTurn::text("ok")])
        .tools(tools)
        .build();
    world.send("hi").unwrap().egress[0].tools.clone()
}

#[test]
fn the_tool_is_offered_only_when_builtin_tools_names_it() {
    assert!(offered_with(&[]).is_empty());
    assert_eq!(offered_with(&["current_datetime"]), ["current_datetime"]);
    assert_eq!(offered_with(&["current_weather"]), ["current_weather"]);
    assert_eq!(
        offered_with(&["current_weather", "current_datetime"]),
        ["current_datetime", "current_weather"]
    );
    let unknown = builtin_tools(&["weather".to_owned()], &seams("http://127.0.0.1:9"))
        .err()
        .unwrap();
    assert_eq!(unknown.name(), "ConfigError");
    assert!(unknown.to_string().contains("current_weather"), "{unknown}");
}

#[test]
fn the_weather_option_defaults_to_open_meteo_and_takes_http_base_urls() {
    let plain = options(json!({"builtinTools": ["current_weather"]}));
    assert_eq!(
        (
            plain.weather.base_url.as_str(),
            plain.weather.geocoding_base_url.as_str()
        ),
        (DEFAULT_WEATHER_BASE_URL, DEFAULT_GEOCODING_BASE_URL)
    );
    assert_eq!(DEFAULT_WEATHER_BASE_URL, "https://api.open-meteo.com");
    assert_eq!(DEFAULT_GEOCODING_BASE_URL, "https://geocoding-api.open-meteo.com");
    plain.check(HostFunctions::default()).unwrap();
    plain.agent_config(Vec::new()).unwrap();
    let local = options(json!({"weather": {"baseUrl": "http://127.0.0.1:8787"}}));
    assert_eq!(local.weather.base_url, "http://127.0.0.1:8787");
    assert_eq!(local.weather.geocoding_base_url, DEFAULT_GEOCODING_BASE_URL);
    let bad = options(json!({"weather": {"geocodingBaseUrl": "geocoding.example"}}));
    let error = bad.agent_config(Vec::new()).err().unwrap();
    assert_eq!(error.name(), "ConfigError");
    assert!(error.to_string().contains("weather.geocodingBaseUrl"), "{error}");
    let unknown = serde_json::from_value::<OpenOptions>(json!({
        "provider": {"kind": "openai", "baseUrl": "http://127.0.0.1:1/v1", "model": "m"},
        "weather": {"apiKey": "x"}
    }));
    assert!(unknown.is_err(), "weather takes only its two URLs");
}
