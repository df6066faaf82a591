//! Checking tool arguments against their JSON Schema before a tool runs.
//!
//! Covers the keywords tool schemas use: `type` (one or several), `enum`,
//! `const`, `properties`, `required`, `additionalProperties`, `items`,
//! `minItems`/`maxItems`, `minLength`/`maxLength`, `minimum`/`maximum`,
//! `exclusiveMinimum`/`exclusiveMaximum`, `anyOf`/`oneOf`/`allOf`. Other
//! keywords (`pattern`, `format`, ...) are accepted and not enforced.
//! Errors name the offending field, e.g. `top_k: must be at most 20, got 50`.

use serde_json::{Map, Value};

/// Checks that a tool's `parameters` is an object schema, as providers require.
pub fn check_parameters_schema(schema: &Value) -> Result<(), String> {
    let Some(object) = schema.as_object() else {
        return Err(format!("must be a JSON Schema object, got {schema}"));
    };
    match object.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        None if object.contains_key("properties") => {}
        other => {
            return Err(format!(
                "must describe an object (\"type\": \"object\"), got type {}",
                other.map_or("none".into(), Value::to_string)
            ))
        }
    }
    if let Some(properties) = object.get("properties") {
        if !properties.is_object() {
            return Err("\"properties\" must be an object".into());
        }
    }
    if let Some(required) = object.get("required") {
        if !required
            .as_array()
            .is_some_and(|r| r.iter().all(Value::is_string))
        {
            return Err("\"required\" must be an array of names".into());
        }
    }
    Ok(())
}

/// Checks `value` against `schema`; the error names the first offending field.
pub fn validate(schema: &Value, value: &Value) -> Result<(), String> {
    check(schema, value, "")
}

fn at(path: &str) -> &str {
    if path.is_empty() {
        "arguments"
    } else {
        path
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_type(value: &Value, wanted: &str) -> bool {
    match wanted {
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "number" => value.is_number(),
        other => type_name(value) == other,
    }
}

fn brief(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

fn check(schema: &Value, value: &Value, path: &str) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        // `true`/`false` schemas and anything unexpected: only `false` refuses.
        return if schema == &Value::Bool(false) {
            Err(format!("{}: is not allowed", at(path)))
        } else {
            Ok(())
        };
    };
    check_type(schema, value, path)?;
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.contains(value) {
            let list: Vec<String> = options.iter().map(Value::to_string).collect();
            return Err(format!(
                "{}: must be one of {}, got {}",
                at(path),
                list.join(", "),
                brief(value)
            ));
        }
    }
    if let Some(constant) = schema.get("const") {
        if constant != value {
            return Err(format!("{}: must be {constant}, got {}", at(path), brief(value)));
        }
    }
    check_combinators(schema, value, path)?;
    match value {
        Value::Object(object) => check_object(schema, object, path),
        Value::Array(items) => check_array(schema, items, path),
        Value::String(text) => check_string(schema, text, path),
        Value::Number(_) => check_number(schema, value, path),
        _ => Ok(()),
    }
}

fn check_type(schema: &Map<String, Value>, value: &Value, path: &str) -> Result<(), String> {
    let wanted: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    if wanted.iter().any(|t| is_type(value, t)) {
        Ok(())
    } else {
        let article = |t: &str| if t.starts_with(['a', 'i', 'o']) { "an" } else { "a" };
        let expected: Vec<String> = wanted.iter().map(|t| format!("{} {t}", article(t))).collect();
        Err(format!(
            "{}: must be {}, got {}",
            at(path),
            expected.join(" or "),
            brief(value)
        ))
    }
}

fn check_combinators(schema: &Map<String, Value>, value: &Value, path: &str) -> Result<(), String> {
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for sub in all {
            check(sub, value, path)?;
        }
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(keyword).and_then(Value::as_array) {
            let matching = options
                .iter()
                .filter(|sub| check(sub, value, path).is_ok())
                .count();
            let ok = if keyword == "anyOf" {
                matching >= 1
            } else {
                matching == 1
            };
            if !ok {
                let first_error = options.iter().find_map(|sub| check(sub, value, path).err());
                return Err(first_error
                    .unwrap_or_else(|| format!("{}: matches none of the allowed shapes", at(path))));
            }
        }
    }
    Ok(())
}

fn check_object(schema: &Map<String, Value>, object: &Map<String, Value>, path: &str) -> Result<(), String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(name) {
                return Err(format!("{}: is required", child(path, name)));
            }
        }
    }
    for (key, inner) in object {
        match properties.and_then(|p| p.get(key)) {
            Some(sub) => check(sub, inner, &child(path, key))?,
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    return Err(format!("{}: is not an allowed field", child(path, key)));
                }
                Some(sub @ Value::Object(_)) => check(sub, inner, &child(path, key))?,
                _ => {}
            },
        }
    }
    Ok(())
}

fn check_array(schema: &Map<String, Value>, items: &[Value], path: &str) -> Result<(), String> {
    let count = items.len() as u64;
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
        if count < min {
            return Err(format!(
                "{}: must have at least {min} items, got {count}",
                at(path)
            ));
        }
    }
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
        if count > max {
            return Err(format!(
                "{}: must have at most {max} items, got {count}",
                at(path)
            ));
        }
    }
    if let Some(item_schema) = schema.get("items") {
        for (i, item) in items.iter().enumerate() {
            check(item_schema, item, &format!("{}[{i}]", at(path)))?;
        }
    }
    Ok(())
}

fn check_string(schema: &Map<String, Value>, text: &str, path: &str) -> Result<(), String> {
    let length = text.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64) {
        if length < min {
            return Err(format!(
                "{}: must be at least {min} characters, got {length}",
                at(path)
            ));
        }
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
        if length > max {
            return Err(format!(
                "{}: must be at most {max} characters, got {length}",
                at(path)
            ));
        }
    }
    Ok(())
}

fn check_number(schema: &Map<String, Value>, value: &Value, path: &str) -> Result<(), String> {
    let Some(n) = value.as_f64() else { return Ok(()) };
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    if let Some(min) = bound("minimum") {
        if n < min {
            return Err(format!("{}: must be at least {min}, got {value}", at(path)));
        }
    }
    if let Some(max) = bound("maximum") {
        if n > max {
            return Err(format!("{}: must be at most {max}, got {value}", at(path)));
        }
    }
    if let Some(min) = bound("exclusiveMinimum") {
        if n <= min {
            return Err(format!("{}: must be greater than {min}, got {value}", at(path)));
        }
    }
    if let Some(max) = bound("exclusiveMaximum") {
        if n >= max {
            return Err(format!("{}: must be less than {max}, got {value}", at(path)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn search_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "top_k": {"type": "integer", "minimum": 1, "maximum": 20},
                "mode": {"enum": ["fast", "exact"]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
                "filter": {"type": "object", "properties": {"year": {"type": ["integer", "null"]}}, "additionalProperties": false}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    #[test]
    fn valid_arguments_pass() {
        let ok =
            json!({"query": "Sunday", "top_k": 5, "mode": "fast", "tags": ["a"], "filter": {"year": null}});
        assert_eq!(validate(&search_schema(), &ok), Ok(()));
        assert_eq!(
            validate(&search_schema(), &json!({"query": "x", "top_k": 5.0})),
            Ok(())
        );
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (json!({}), "query: is required"),
            (json!({"query": 3}), "query: must be a string, got 3"),
            (
                json!({"query": ""}),
                "query: must be at least 1 characters, got 0",
            ),
            (
                json!({"query": "x", "top_k": 50}),
                "top_k: must be at most 20, got 50",
            ),
            (
                json!({"query": "x", "top_k": 2.5}),
                "top_k: must be an integer, got 2.5",
            ),
            (
                json!({"query": "x", "mode": "slow"}),
                "mode: must be one of \"fast\", \"exact\", got \"slow\"",
            ),
            (
                json!({"query": "x", "tags": ["a", 1]}),
                "tags[1]: must be a string, got 1",
            ),
            (
                json!({"query": "x", "tags": ["a", "b", "c", "d"]}),
                "tags: must have at most 3 items, got 4",
            ),
            (
                json!({"query": "x", "filter": {"year": "1908"}}),
                "filter.year: must be an integer or a null, got \"1908\"",
            ),
            (
                json!({"query": "x", "filter": {"month": 1}}),
                "filter.month: is not an allowed field",
            ),
            (
                json!({"query": "x", "extra": true}),
                "extra: is not an allowed field",
            ),
            (json!(["query"]), "arguments: must be an object, got [\"query\"]"),
        ];
        for (value, expected) in cases {
            assert_eq!(
                validate(&search_schema(), &value),
                Err(expected.to_string()),
                "{value}"
            );
        }
    }

    #[test]
    fn combinators() {
        let schema = json!({"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]});
        assert!(validate(&schema, &json!("a")).is_ok());
        assert!(validate(&schema, &json!(3)).is_ok());
        assert!(validate(&schema, &json!(-1)).is_err());
        let one = json!({"oneOf": [{"type": "number"}, {"type": "integer"}]});
        assert!(validate(&one, &json!(1)).is_err(), "an integer matches both");
        assert!(validate(&one, &json!(1.5)).is_ok());
    }

    #[test]
    fn parameters_must_be_an_object_schema() {
        assert!(check_parameters_schema(&json!({"type": "object", "properties": {}})).is_ok());
        assert!(check_parameters_schema(&json!({"properties": {}})).is_ok());
        assert!(check_parameters_schema(&json!({"type": "string"})).is_err());
        assert!(check_parameters_schema(&json!("object")).is_err());
        assert!(check_parameters_schema(&json!({"type": "object", "required": "q"})).is_err());
    }
}
