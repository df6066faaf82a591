//! Internally tagged option enums (`{ kind: 'openai', ... }`), read through
//! one `serde_json::Value`.
//!
//! serde's derive for `#[serde(tag = "...")]` buffers the input into its
//! private `Content` type and deserialises every variant from it: in the wasm
//! module that machinery and its per-variant copies weighed about 35 KB for
//! three small options enums (issue 12). Reading the object as a `Value`,
//! taking the tag out and reading the variant's fields with their
//! `FromJson` reader reuses code the crate has anyway. The messages
//! stay serde's (`missing field `kind``, `unknown variant …, expected one of …`).

use serde::de::{Deserializer, Error, Unexpected};
use serde::Deserialize;
use serde_json::{Map, Value};

/// An object whose tag was taken out.
pub struct Tagged {
    /// The tag's value: which variant.
    pub tag: String,
    /// The object's other fields.
    fields: Map<String, Value>,
}

impl Tagged {
    /// Reads an object from `deserializer` and takes out its string field `tag`.
    pub fn read<'de, D: Deserializer<'de>>(deserializer: D, tag: &'static str) -> Result<Self, D::Error> {
        let mut fields = match Value::deserialize(deserializer)? {
            Value::Object(fields) => fields,
            other => return Err(D::Error::invalid_type(unexpected(&other), &"an object")),
        };
        match fields.remove(tag) {
            Some(Value::String(value)) => Ok(Tagged { tag: value, fields }),
            Some(other) => Err(D::Error::invalid_type(unexpected(&other), &"a string tag")),
            None => Err(D::Error::missing_field(tag)),
        }
    }

    /// The variant's fields (the object without its tag) as `T`.
    pub fn fields<T: crate::json::from_json::FromJson, E: Error>(self) -> Result<T, E> {
        T::from_json(Value::Object(self.fields)).map_err(E::custom)
    }

    /// The error for a tag that names none of `variants`.
    pub fn unknown<E: Error>(&self, variants: &'static [&'static str]) -> E {
        E::unknown_variant(&self.tag, variants)
    }
}

/// What a JSON value is, for serde's "invalid type" message.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(_) => Unexpected::Other("a number"),
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::from_json::FromJson;

    #[derive(Debug, PartialEq, FromJson)]
    #[serde(deny_unknown_fields)]
    struct Fields {
        n: u32,
    }

    #[derive(Debug, PartialEq)]
    enum Shape {
        One(Fields),
    }

    impl<'de> Deserialize<'de> for Shape {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let tagged = Tagged::read(deserializer, "kind")?;
            match tagged.tag.as_str() {
                "one" => tagged.fields().map(Shape::One),
                _ => Err(tagged.unknown(&["one"])),
            }
        }
    }

    fn parse(json: &str) -> Result<Shape, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_the_variant_named_by_the_tag() {
        assert_eq!(parse(r#"{"kind":"one","n":3}"#), Ok(Shape::One(Fields { n: 3 })));
        assert_eq!(parse(r#"{"n":3,"kind":"one"}"#), Ok(Shape::One(Fields { n: 3 })));
    }

    #[test]
    fn names_what_is_wrong() {
        let err = |json| parse(json).unwrap_err();
        assert!(err(r#"{"n":3}"#).contains("missing field `kind`"));
        assert!(err(r#"{"kind":"two"}"#).contains("unknown variant `two`, expected `one`"));
        assert!(err(r#"{"kind":1}"#).contains("invalid type: a number, expected a string tag"));
        assert!(err(r#"[1]"#).contains("invalid type: sequence, expected an object"));
        assert!(err(r#"{"kind":"one","n":3,"m":4}"#).contains("unknown field `m`"));
        assert!(err(r#"{"kind":"one"}"#).contains("missing field `n`"));
    }
}
