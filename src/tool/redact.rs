//! Hiding secret argument fields from events and stored records.

use serde_json::Value;

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[redacted]";

/// `arguments` (JSON text) with every field named in `fields`, at any depth,
/// replaced by `"[redacted]"`. Text that is not JSON is returned as is when
/// nothing is to be redacted, and replaced whole otherwise.
pub fn redact_arguments(arguments: &str, fields: &[String]) -> String {
    if fields.is_empty() {
        return arguments.to_owned();
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(mut value) => {
            redact_value(&mut value, fields);
            value.to_string()
        }
        Err(_) => REDACTED.to_owned(),
    }
}

fn redact_value(value: &mut Value, fields: &[String]) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if fields.iter().any(|f| f == key) {
                    *inner = Value::String(REDACTED.to_owned());
                } else {
                    redact_value(inner, fields);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact_value(v, fields)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_named_fields_at_any_depth() {
        let fields = vec!["password".to_string(), "token".to_string()];
        let out = redact_arguments(
            r#"{"user":"ann","password":"hunter2","nested":[{"token":"t"}]}"#,
            &fields,
        );
        assert_eq!(
            out,
            r#"{"nested":[{"token":"[redacted]"}],"password":"[redacted]","user":"ann"}"#
        );
        assert_eq!(redact_arguments("{not json", &fields), REDACTED);
        assert_eq!(redact_arguments("{not json", &[]), "{not json");
    }
}
