//! Structured output: the JSON Schema a turn's final answer must match
//! (`send`'s `responseSchema`).

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::json::from_json::FromJson;

/// The reserved tool through which Anthropic is made to answer in JSON
/// (its input is the answer); no registered tool may take this name.
pub const RESPONSE_TOOL: &str = "lectern_response";

/// The name a response schema gets when the host gives none.
pub const DEFAULT_RESPONSE_NAME: &str = "response";

/// The JSON Schema the final answer must match, with the name and strictness
/// OpenAI's `response_format` carries.
///
/// It is also the shape of `send`'s `responseSchema` (`name` and `strict`
/// optional); one read from outside goes through [`ResponseFormat::checked`].
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResponseFormat {
    /// The schema's name: 1-64 characters of a-z, A-Z, 0-9, `_` or `-`.
    #[serde(default = "default_name")]
    pub name: String,
    /// A JSON Schema describing an object.
    pub schema: Value,
    /// Ask OpenAI-compatible servers to enforce the schema while sampling
    /// (they then want every property required and `additionalProperties: false`).
    #[serde(default)]
    pub strict: bool,
}

fn default_name() -> String {
    DEFAULT_RESPONSE_NAME.to_owned()
}

impl ResponseFormat {
    /// A checked format: `name` (default `response`) must fit
    /// `[a-zA-Z0-9_-]{1,64}` and `schema` must describe an object.
    pub fn new(name: Option<String>, schema: Value, strict: bool) -> Result<Self> {
        let name = name.unwrap_or_else(default_name);
        ResponseFormat { name, schema, strict }.checked()
    }

    /// This format, if its `name` fits `[a-zA-Z0-9_-]{1,64}` and its `schema`
    /// describes an object; else a `Config` error naming the field.
    pub fn checked(self) -> Result<Self> {
        let ResponseFormat { name, schema, strict } = self;
        let valid_name = (1..=64).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid_name {
            return Err(Error::config(format!(
                "responseSchema.name {name:?} must be 1-64 characters of a-z, A-Z, 0-9, _ or -"
            )));
        }
        let describes_object = schema
            .as_object()
            .is_some_and(|s| s.get("type").and_then(Value::as_str) == Some("object"));
        if !describes_object {
            return Err(Error::config(
                "responseSchema.schema must be a JSON Schema object with \"type\": \"object\"",
            ));
        }
        Ok(ResponseFormat { name, schema, strict })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn name_defaults_and_is_checked() {
        let schema = json!({"type": "object"});
        let format = ResponseFormat::new(None, schema.clone(), false).unwrap();
        assert_eq!(format.name, "response");
        for bad in ["", "has space", "é", &"x".repeat(65)] {
            let error = ResponseFormat::new(Some(bad.into()), schema.clone(), false).unwrap_err();
            assert!(matches!(error, Error::Config { .. }), "{bad}: {error:?}");
        }
        assert!(ResponseFormat::new(Some("Answer_v-2".into()), schema, true).is_ok());
    }

    #[test]
    fn schema_must_describe_an_object() {
        for bad in [json!("object"), json!({"type": "string"}), json!({}), json!([])] {
            assert!(ResponseFormat::new(None, bad.clone(), false).is_err(), "{bad}");
        }
    }
}
