//! [`FromJson`]: reading a record out of a `serde_json::Value` with little
//! code per type. `#[derive(FromJson)]` (the `lectern-derive` crate, in
//! `derive/`) writes each type's reader as calls to [`Fields`]; the generic
//! parts here depend on a field's type only, so every record shares them.
//! A field is read by its type's `FromJson` (records, `Option`, `Vec`), or by
//! serde through [`from_json_via_serde!`](crate::from_json_via_serde) (scalars,
//! maps, the tagged enums whose `Deserialize` is written by hand). The JS
//! inputs and the stored records are read this way too (`web::from_js_text`).
//!
//! Messages are serde's: `missing field `x``, `unknown field `x`, expected one
//! of …`, `unknown variant …`, `invalid type: …, expected struct X`. One
//! difference from serde's derive: when a value has several faults, the
//! unknown field is named first, then the fields in declaration order (serde
//! names whichever fault comes first in the object's key order).

use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde_json::{Error, Map, Value};

use crate::json::value_de::{unexpected, unit_value, variant_parts};

pub use lectern_derive::FromJson;

/// A type read from a JSON value; `#[derive(FromJson)]` implements it, and
/// [`from_json_via_serde!`](crate::from_json_via_serde) for a type serde reads.
pub trait FromJson: Sized {
    /// `value` as a `Self`, or serde's message for what is wrong with it.
    fn from_json(value: Value) -> Result<Self, Error>;

    /// What a missing field named `name` reads as: serde's `missing field`,
    /// or `None` for an `Option`.
    fn missing(name: &'static str) -> Result<Self, Error> {
        Err(Error::missing_field(name))
    }
}

/// `FromJson` for types serde reads (`value_de::from_value`): scalars, and
/// types whose `Deserialize` is serde's derive or written by hand.
#[macro_export]
macro_rules! from_json_via_serde {
    ($($type:ty),* $(,)?) => {
        $(impl $crate::json::from_json::FromJson for $type {
            fn from_json(value: ::serde_json::Value) -> ::std::result::Result<Self, ::serde_json::Error> {
                $crate::json::value_de::from_value(value)
            }
        })*
    };
}

from_json_via_serde!(bool, u8, u16, u32, u64, usize, i32, i64, f32, f64, String, Value);

impl<T: FromJson> FromJson for Option<T> {
    fn from_json(value: Value) -> Result<Self, Error> {
        match value {
            Value::Null => Ok(None),
            value => T::from_json(value).map(Some),
        }
    }

    fn missing(_name: &'static str) -> Result<Self, Error> {
        Ok(None)
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(value: Value) -> Result<Self, Error> {
        match value {
            Value::Array(items) => {
                // A loop, not `collect()` into a `Result`: far less code for each `T`.
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(T::from_json(item)?);
                }
                Ok(out)
            }
            other => Err(Error::invalid_type(unexpected(&other), &"a sequence")),
        }
    }
}

/// A map field, as serde reads it (`SortedMap` has its own, in `domain`).
impl<V: DeserializeOwned> FromJson for std::collections::BTreeMap<String, V> {
    fn from_json(value: Value) -> Result<Self, Error> {
        crate::json::value_de::from_value(value)
    }
}

/// A pair, as serde reads it (an array of two).
impl<A: DeserializeOwned, B: DeserializeOwned> FromJson for (A, B) {
    fn from_json(value: Value) -> Result<Self, Error> {
        crate::json::value_de::from_value(value)
    }
}

/// `serde::Deserialize` for a [`FromJson`] type: the value first, then the
/// reader. The derive's `Deserialize` impl calls this, for a record that
/// serde reads inside its own types (a flattened entry's fields, a map's
/// values, a pair's items).
pub fn deserialize<'de, D: Deserializer<'de>, T: FromJson>(deserializer: D) -> Result<T, D::Error> {
    let value = <Value as serde::Deserialize>::deserialize(deserializer)?;
    T::from_json(value).map_err(D::Error::custom)
}

/// An object's fields, taken out by name.
pub struct Fields(Map<String, Value>);

impl Fields {
    /// `value`'s fields if it is an object; with `deny_unknown`, an error
    /// naming the first key that is not in `known`.
    pub fn open(
        value: Value,
        expecting: &'static str,
        known: &'static [&'static str],
        deny_unknown: bool,
    ) -> Result<Self, Error> {
        let map = match value {
            Value::Object(map) => map,
            other => return Err(Error::invalid_type(unexpected(&other), &expecting)),
        };
        if deny_unknown {
            if let Some(key) = map.keys().find(|key| !known.contains(&key.as_str())) {
                return Err(Error::unknown_field(key, known));
            }
        }
        Ok(Self(map))
    }

    /// The field `name`; when it is missing, what [`FromJson::missing`] says.
    pub fn required<T: FromJson>(&mut self, name: &'static str) -> Result<T, Error> {
        match self.0.remove(name) {
            Some(value) => T::from_json(value),
            None => T::missing(name),
        }
    }

    /// The field `name`, or `None` when it is missing (its default is the caller's).
    pub fn optional<T: FromJson>(&mut self, name: &'static str) -> Result<Option<T>, Error> {
        self.0.remove(name).map(T::from_json).transpose()
    }
}

/// A unit variant's name: a string, or an object with one key whose value is
/// `null` (serde_json's two forms of a unit variant).
pub fn variant_name(value: Value) -> Result<String, Error> {
    let (name, value) = variant_parts(value)?;
    unit_value(value)?;
    Ok(name)
}

/// serde's `unknown variant` message.
pub fn unknown_variant(name: &str, variants: &'static [&'static str]) -> Error {
    Error::unknown_variant(name, variants)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::{json, Value};

    use super::FromJson;

    fn answer() -> u32 {
        42
    }

    #[derive(Debug, PartialEq, FromJson)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Ours {
        record_id: String,
        #[serde(rename = "n")]
        count: u32,
        note: Option<String>,
        #[serde(default)]
        tags: Vec<String>,
        #[serde(default = "answer")]
        limit: u32,
        #[serde(skip)]
        cache: u8,
        kind: OurKind,
        #[serde(default)]
        inner: Option<OurLoose>,
        #[serde(default)]
        kinds: Vec<OurKind>,
        extra: Option<Value>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Serdes {
        record_id: String,
        #[serde(rename = "n")]
        count: u32,
        note: Option<String>,
        #[serde(default)]
        tags: Vec<String>,
        #[serde(default = "answer")]
        limit: u32,
        #[serde(skip)]
        cache: u8,
        kind: SerdeKind,
        #[serde(default)]
        inner: Option<SerdeLoose>,
        #[serde(default)]
        kinds: Vec<SerdeKind>,
        extra: Option<Value>,
    }

    #[derive(Debug, PartialEq, FromJson)]
    #[serde(rename_all = "snake_case")]
    enum OurKind {
        PlainText,
        #[serde(rename = "md")]
        Markdown,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum SerdeKind {
        PlainText,
        #[serde(rename = "md")]
        Markdown,
    }

    #[derive(Debug, PartialEq, Default, FromJson)]
    #[serde(default, rename_all = "camelCase")]
    struct OurLoose {
        max_tokens: Option<u32>,
        label: String,
    }

    #[derive(Debug, PartialEq, Default, Deserialize)]
    #[serde(default, rename_all = "camelCase")]
    struct SerdeLoose {
        max_tokens: Option<u32>,
        label: String,
    }

    /// Both readers' outcome as text: the value's `Debug` with the type names
    /// made equal, or the error's message. The reference is serde's derive read
    /// by `value_de` (serde_json's reader, less structs from arrays).
    fn both(value: Value) -> (String, String) {
        let text = |outcome: Result<String, serde_json::Error>| {
            let text = outcome.unwrap_or_else(|e| e.to_string());
            text.replace("Serdes", "Ours")
                .replace("SerdeKind", "OurKind")
                .replace("SerdeLoose", "OurLoose")
        };
        let ours = Ours::from_json(value.clone()).map(|v| format!("{v:?}"));
        let serdes = crate::json::value_de::from_value::<Serdes>(value).map(|v| format!("{v:?}"));
        (text(ours), text(serdes))
    }

    /// Every single fault reads as serde's derive reads it, message for message.
    #[test]
    fn it_reads_what_serdes_derive_reads() {
        let cases = [
            json!({"recordId": "a", "n": 3, "kind": "plain_text"}),
            json!({"recordId": "a", "n": 3, "note": "x", "tags": ["t"], "limit": 1, "kind": "md", "inner": {"maxTokens": 9}}),
            json!({"recordId": "a", "n": 3, "note": null, "kind": "md", "inner": {}}),
            json!({"recordId": "a", "n": 3, "kind": {"md": null}}),
            json!({"n": 3, "kind": "md"}),
            json!({"recordId": "a", "kind": "md"}),
            json!({"recordId": "a", "n": 3}),
            json!({"recordId": "a", "n": -3, "kind": "md"}),
            json!({"recordId": "a", "n": 3, "kind": "html"}),
            json!({"recordId": "a", "n": 3, "kind": 7}),
            json!({"recordId": "a", "n": 3, "kind": {"md": 1}}),
            json!({"recordId": "a", "n": 3, "kind": {"md": null, "plain_text": null}}),
            json!({"recordId": "a", "n": 3, "kind": "md", "extra": 1}),
            json!({"recordId": "a", "n": 3, "kind": "md", "other": 1}),
            json!({"recordId": "a", "n": 3, "kind": "md", "kinds": ["md", "plain_text"]}),
            json!({"recordId": "a", "n": 3, "kind": "md", "kinds": "md"}),
            json!({"recordId": "a", "n": 3, "kind": "md", "kinds": ["md", "x"]}),
            json!({"recordId": "a", "n": 3, "kind": "md", "kinds": null}),
            json!({"recordId": "a", "n": 3, "kind": "md", "cache": 1}),
            json!({"recordId": "a", "n": 3, "kind": "md", "inner": {"maxTokens": "x"}}),
            json!({"recordId": "a", "n": 3, "kind": "md", "inner": {"other": 1}}),
            json!({"recordId": "a", "n": 3, "kind": "md", "inner": []}),
            json!(["a", 3]),
            json!("text"),
            json!(null),
        ];
        for value in cases {
            let (ours, serdes) = both(value.clone());
            assert_eq!(ours, serdes, "for {value}");
        }
    }

    /// A derived type nests inside serde's types and reads from JSON text.
    #[test]
    fn it_is_a_serde_deserialize() {
        let kinds: Vec<OurKind> = serde_json::from_str(r#"["md", "plain_text"]"#).unwrap();
        assert_eq!(kinds, [OurKind::Markdown, OurKind::PlainText]);
        let err = serde_json::from_str::<Vec<OurKind>>(r#"["x"]"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("unknown variant `x`, expected `plain_text` or `md`"),
            "{err}"
        );
    }
}
