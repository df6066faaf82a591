//! Tool-call records as the JS API gives them, in the shape of the
//! `toolInvocation` event and of a pending call: `arguments` and
//! `originalArguments` as objects (`null` when the model's text is not a JSON
//! object), the model's text beside them (`argumentsText`,
//! `originalArgumentsText`); `result` as the value the tool returned (its
//! text when that is not JSON) beside `resultText`, the text the model read.
//! The stored records and the export bundle keep the text form.

use js_sys::{Array, Reflect, JSON};
use wasm_bindgen::JsValue;

/// Reshapes each record of the array at `value[key]` in place (nothing when there is none).
pub fn shape_records_in(value: &JsValue, key: &str) {
    if let Ok(records) = Reflect::get(value, &key.into()) {
        shape_records(&records);
    }
}

/// Reshapes each record of `records` (an array of `ToolCallRecord`s) in place.
pub fn shape_records(records: &JsValue) {
    if !Array::is_array(records) {
        return;
    }
    for record in Array::from(records).iter() {
        shape_record(&record);
    }
}

fn shape_record(record: &JsValue) {
    for (field, text_field) in [
        ("arguments", "argumentsText"),
        ("originalArguments", "originalArgumentsText"),
    ] {
        let Some(text) = Reflect::get(record, &field.into())
            .ok()
            .and_then(|t| t.as_string())
        else {
            continue;
        };
        let object = JSON::parse(&text)
            .ok()
            .filter(|v| v.is_object() && !Array::is_array(v))
            .unwrap_or(JsValue::NULL);
        let _ = Reflect::set(record, &text_field.into(), &text.into());
        let _ = Reflect::set(record, &field.into(), &object);
    }
    let text = Reflect::get(record, &"result".into())
        .ok()
        .and_then(|t| t.as_string());
    let value = match &text {
        Some(text) => JSON::parse(text).unwrap_or_else(|_| JsValue::from_str(text)),
        None => JsValue::NULL,
    };
    let text = text.map_or(JsValue::NULL, JsValue::from);
    let _ = Reflect::set(record, &"resultText".into(), &text);
    let _ = Reflect::set(record, &"result".into(), &value);
}
