//! `current_datetime`'s time zones in the browser: `Intl.DateTimeFormat`
//! (`formatToParts` for the reading, `resolvedOptions().timeZone` for the
//! zone's canonical name and the reader's default). Every call goes through
//! `Reflect`, so a `RangeError` (an unknown zone) is a tool error, never a trap.

use js_sys::{Array, Date, Function, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::tool::builtin::{unknown_zone, TimeZones, ZonedTime};

/// The browser's time zones.
#[derive(Debug, Default)]
pub struct IntlZones;

impl TimeZones for IntlZones {
    fn format(&self, now_ms: f64, zone: &str) -> Result<ZonedTime, String> {
        let options = Object::new();
        for (key, value) in [
            ("timeZone", zone),
            ("hourCycle", "h23"),
            ("year", "numeric"),
            ("month", "2-digit"),
            ("day", "2-digit"),
            ("hour", "2-digit"),
            ("minute", "2-digit"),
            ("second", "2-digit"),
            ("weekday", "long"),
            ("timeZoneName", "longOffset"),
        ] {
            let _ = Reflect::set(&options, &key.into(), &value.into());
        }
        let format =
            date_time_format(&Array::of2(&"en-US".into(), &options)).map_err(|_| unknown_zone(zone))?;
        let parts = call(&format, "formatToParts", &Date::new(&JsValue::from_f64(now_ms)))
            .map_err(|e| format!("Intl.DateTimeFormat failed: {e:?}"))?;
        let part = |kind: &str| -> String {
            Array::from(&parts)
                .iter()
                .find(|p| {
                    Reflect::get(p, &"type".into())
                        .ok()
                        .and_then(|t| t.as_string())
                        .as_deref()
                        == Some(kind)
                })
                .and_then(|p| Reflect::get(&p, &"value".into()).ok())
                .and_then(|v| v.as_string())
                .unwrap_or_default()
        };
        let name = resolved_zone(&format).unwrap_or_else(|| zone.to_owned());
        let date = format!("{}-{}-{}", part("year"), part("month"), part("day"));
        let time = format!("{}:{}:{}", part("hour"), part("minute"), part("second"));
        Ok(ZonedTime::new(
            &name,
            date,
            time,
            part("weekday"),
            offset(&part("timeZoneName")),
        ))
    }

    fn reader_zone(&self) -> String {
        date_time_format(&Array::new())
            .ok()
            .and_then(|format| resolved_zone(&format))
            .unwrap_or_else(|| "UTC".to_owned())
    }
}

/// `new Intl.DateTimeFormat(...args)`, or what it threw.
fn date_time_format(args: &Array) -> Result<JsValue, JsValue> {
    let intl = Reflect::get(&js_sys::global(), &"Intl".into())?;
    let constructor: Function = Reflect::get(&intl, &"DateTimeFormat".into())?.dyn_into()?;
    Reflect::construct(&constructor, args)
}

/// `target[method](arg)`, or what it threw.
fn call(target: &JsValue, method: &str, arg: &JsValue) -> Result<JsValue, JsValue> {
    let function: Function = Reflect::get(target, &method.into())?.dyn_into()?;
    function.call1(target, arg)
}

/// `format.resolvedOptions().timeZone`.
fn resolved_zone(format: &JsValue) -> Option<String> {
    let function: Function = Reflect::get(format, &"resolvedOptions".into())
        .ok()?
        .dyn_into()
        .ok()?;
    let options = function.call0(format).ok()?;
    Reflect::get(&options, &"timeZone".into()).ok()?.as_string()
}

/// `GMT+09:00` → `+09:00`; `GMT` → `+00:00`.
fn offset(name: &str) -> String {
    let rest = name
        .trim_start_matches("GMT")
        .trim_start_matches("UTC")
        .replace('\u{2212}', "-");
    if rest.is_empty() {
        "+00:00".to_owned()
    } else {
        rest
    }
}
