//! [`from_value`]: `serde_json::from_value` without reading structs from arrays.
//!
//! What serde still reads out of a `serde_json::Value` (scalars, maps, the
//! hand-written tagged enums, the types `FromJson` does not derive; records
//! and the JS API's inputs are `FromJson`'s, `crate::json::from_json`). serde_json's
//! own deserializer for `Value` accepts a
//! struct written as an array of its fields too (`["id", 3]` for
//! `{ "id": …, "seq": … }`): Lectern never writes or documents that form, yet
//! every struct carried its array reader in the wasm module, about 55 KB of
//! the page's module (twiggy: `visit_array` and `SeqDeserializer` for each of
//! 64 structs). This deserializer reads structs from objects only; the rest is
//! serde_json's behaviour, messages included: numbers, `null` as `None`, enums
//! as a string or a one-key object, sequences, maps, the "fewer elements"
//! checks.

use serde::de::{
    DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, Error as _, IntoDeserializer, MapAccess,
    SeqAccess, Unexpected, VariantAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::{Error, Map, Number, Value};

/// `value` as a `T`, as `serde_json::from_value` reads it, except that a
/// struct must be an object.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    T::deserialize(ValueDe(value))
}

/// One `Value`, read by a visitor.
struct ValueDe(Value);

/// What a value is, for serde's "invalid type" message (serde_json's words).
pub(crate) fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => number_unexpected(n),
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

fn number_unexpected(n: &Number) -> Unexpected<'static> {
    if let Some(u) = n.as_u64() {
        Unexpected::Unsigned(u)
    } else if let Some(i) = n.as_i64() {
        Unexpected::Signed(i)
    } else {
        Unexpected::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// An enum value's variant name and what it holds: a string is a unit
/// variant's name; an object with one key, the variant and its value.
pub(crate) fn variant_parts(value: Value) -> Result<(String, Option<Value>), Error> {
    match value {
        Value::String(variant) => Ok((variant, None)),
        Value::Object(object) => {
            let mut entries = object.into_iter();
            match (entries.next(), entries.next()) {
                (Some((variant, value)), None) => Ok((variant, Some(value))),
                _ => Err(Error::invalid_value(Unexpected::Map, &"map with a single key")),
            }
        }
        other => Err(Error::invalid_type(unexpected(&other), &"string or map")),
    }
}

/// What a unit variant may hold: nothing (written as a string) or `null`.
pub(crate) fn unit_value(value: Option<Value>) -> Result<(), Error> {
    match value {
        None | Some(Value::Null) => Ok(()),
        Some(other) => Err(Error::invalid_type(unexpected(&other), &"unit")),
    }
}

fn visit_number<'de, V: Visitor<'de>>(n: Number, visitor: V) -> Result<V::Value, Error> {
    if let Some(u) = n.as_u64() {
        visitor.visit_u64(u)
    } else if let Some(i) = n.as_i64() {
        visitor.visit_i64(i)
    } else {
        visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
    }
}

fn visit_array<'de, V: Visitor<'de>>(array: Vec<Value>, visitor: V) -> Result<V::Value, Error> {
    let len = array.len();
    let mut seq = Seq(array.into_iter());
    let value = visitor.visit_seq(&mut seq)?;
    match seq.0.len() {
        0 => Ok(value),
        _ => Err(Error::invalid_length(len, &"fewer elements in array")),
    }
}

fn visit_object<'de, V: Visitor<'de>>(object: Map<String, Value>, visitor: V) -> Result<V::Value, Error> {
    let len = object.len();
    let mut map = Entries {
        rest: object.into_iter(),
        value: None,
    };
    let value = visitor.visit_map(&mut map)?;
    match map.rest.len() {
        0 => Ok(value),
        _ => Err(Error::invalid_length(len, &"fewer elements in map")),
    }
}

impl<'de> Deserializer<'de> for ValueDe {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => visit_number(n, visitor),
            Value::String(s) => visitor.visit_string(s),
            Value::Array(array) => visit_array(array, visitor),
            Value::Object(object) => visit_object(object, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            value => visitor.visit_some(ValueDe(value)),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            other => Err(Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(array) => visit_array(array, visitor),
            other => Err(Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(object) => visit_object(object, visitor),
            other => Err(Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    /// An object only: the difference from serde_json's reader.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (variant, value) = variant_parts(self.0)?;
        visitor.visit_enum(Variant { variant, value })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit_struct tuple tuple_struct identifier
    }
}

/// An array's values, one by one.
struct Seq(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Seq {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|value| seed.deserialize(ValueDe(value)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// An object's entries, one by one: a key, then its value.
struct Entries {
    rest: serde_json::map::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for Entries {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        match self.rest.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(key.into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(ValueDe(value)),
            None => Err(Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rest.len())
    }
}

/// An enum's variant name, with its value unless it is a unit variant written as a string.
struct Variant {
    variant: String,
    value: Option<Value>,
}

impl<'de> EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = VariantValue;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, VariantValue), Error> {
        let variant = seed.deserialize(self.variant.into_deserializer())?;
        Ok((variant, VariantValue(self.value)))
    }
}

/// What a variant holds.
struct VariantValue(Option<Value>);

impl<'de> VariantAccess<'de> for VariantValue {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        unit_value(self.0)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        match self.0 {
            Some(value) => seed.deserialize(ValueDe(value)),
            None => Err(Error::invalid_type(Unexpected::UnitVariant, &"newtype variant")),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Some(Value::Array(array)) if array.is_empty() => visitor.visit_unit(),
            Some(Value::Array(array)) => visit_array(array, visitor),
            Some(other) => Err(Error::invalid_type(unexpected(&other), &"tuple variant")),
            None => Err(Error::invalid_type(Unexpected::UnitVariant, &"tuple variant")),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Some(Value::Object(object)) => visit_object(object, visitor),
            Some(other) => Err(Error::invalid_type(unexpected(&other), &"struct variant")),
            None => Err(Error::invalid_type(Unexpected::UnitVariant, &"struct variant")),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::from_value;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Record {
        id: String,
        seq: u32,
        #[serde(default)]
        tags: Vec<String>,
        note: Option<String>,
        kind: Kind,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    enum Kind {
        Plain,
        Scored(f64),
        Span { from: u32, to: u32 },
    }

    fn same<T: for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(value: serde_json::Value) {
        let ours = from_value::<T>(value.clone()).map_err(|e| e.to_string());
        let theirs = serde_json::from_value::<T>(value).map_err(|e| e.to_string());
        assert_eq!(ours, theirs);
    }

    /// Every shape a record takes reads as serde_json reads it, errors and their messages included.
    #[test]
    fn it_reads_what_serde_json_reads() {
        same::<Record>(json!({"id": "a", "seq": 3, "note": null, "kind": "plain"}));
        same::<Record>(json!({"id": "a", "seq": 3, "tags": ["x"], "note": "n", "kind": {"scored": 0.5}}));
        same::<Record>(json!({"id": "a", "seq": 3, "kind": {"span": {"from": 1, "to": 2}}, "extra": true}));
        same::<Record>(json!({"id": "a", "seq": -1, "kind": "plain"}));
        same::<Record>(json!({"id": "a", "seq": 1.5, "kind": "plain"}));
        same::<Record>(json!({"id": 4, "seq": 1, "kind": "plain"}));
        same::<Record>(json!({"seq": 1, "kind": "plain"}));
        same::<Record>(json!({"id": "a", "seq": 1, "kind": "other"}));
        same::<Record>(json!({"id": "a", "seq": 1, "kind": {"plain": null, "scored": 1}}));
        same::<Record>(json!({"id": "a", "seq": 1, "kind": {"scored": "x"}}));
        same::<Record>(json!({"id": "a", "seq": 1, "kind": {"plain": 3}}));
        same::<Record>(json!({"id": "a", "seq": 1, "kind": {"span": [1, 2]}}));
        same::<Record>(json!({"id": "a", "seq": 1, "kind": "span"}));
        same::<Record>(json!("text"));
        same::<Vec<u8>>(json!([1, 2, 300]));
        same::<(u8, u8)>(json!([1, 2, 3]));
        same::<Option<f32>>(json!(2));
        same::<std::collections::BTreeMap<String, i64>>(json!({"a": -2, "b": 3}));
        same::<serde_json::Value>(json!({"a": [1, {"b": null}], "c": 1.25}));
    }

    /// A struct written as an array of its fields is an error here (serde_json would read it).
    #[test]
    fn a_struct_is_an_object() {
        let err = from_value::<Record>(json!(["a", 3, [], null, "plain"])).unwrap_err();
        assert_eq!(err.to_string(), "invalid type: sequence, expected struct Record");
    }
}
