//! Reading an import's JSON field by field, each fault an `Import` error
//! naming where it is (`messages[3].tool_call_id`).

use serde_json::{Map, Value};

use super::MAX_IMPORT_RECORDS;
use crate::agent::send::MAX_USER_MESSAGE_CHARS;
use crate::error::{Error, Result};
use crate::json::from_json::FromJson;

/// `key` under `parent` (the top level when `parent` is empty).
pub(super) fn path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// Refuses keys of `object` other than `known`.
pub(super) fn only_known(object: &Map<String, Value>, known: &[&str], parent: &str) -> Result<()> {
    match object.keys().find(|key| !known.contains(&key.as_str())) {
        Some(key) => Err(Error::import(path(parent, key), "unknown field")),
        None => Ok(()),
    }
}

/// A record in its stored shape, read from `value`.
pub(super) fn record<T: FromJson>(value: Value, at: &str) -> Result<T> {
    T::from_json(value).map_err(|e| Error::import(at, e.to_string()))
}

/// The array at `key` (empty when absent, unless `required`), at most
/// [`MAX_IMPORT_RECORDS`] long, with each item's path.
pub(super) fn items(
    object: &mut Map<String, Value>,
    key: &str,
    required: bool,
) -> Result<Vec<(Value, String)>> {
    let items = match object.remove(key) {
        Some(Value::Array(items)) => items,
        None if !required => Vec::new(),
        None => return Err(Error::import(key, "missing")),
        Some(_) => return Err(Error::import(key, "must be an array")),
    };
    if items.len() > MAX_IMPORT_RECORDS {
        return Err(Error::import(
            key,
            format!(
                "{} items, more than the {MAX_IMPORT_RECORDS} an import may hold",
                items.len()
            ),
        ));
    }
    Ok(items
        .into_iter()
        .enumerate()
        .map(|(i, item)| (item, format!("{key}[{i}]")))
        .collect())
}

/// The records of the array at `key`, each read in its stored shape.
pub(super) fn records<T: FromJson>(
    object: &mut Map<String, Value>,
    key: &str,
    required: bool,
) -> Result<Vec<T>> {
    items(object, key, required)?
        .into_iter()
        .map(|(item, at)| record(item, &at))
        .collect()
}

/// A text no longer than a user message may be.
pub(super) fn check_size(text: &str, at: &str) -> Result<()> {
    let chars = text.chars().count();
    if chars > MAX_USER_MESSAGE_CHARS {
        return Err(Error::import(
            at,
            format!("{chars} characters, more than the {MAX_USER_MESSAGE_CHARS} a message may have"),
        ));
    }
    Ok(())
}

/// A conversation title no longer than `createConversation` allows.
pub(super) fn check_title(title: &str, at: &str) -> Result<()> {
    if title.chars().count() > 500 {
        return Err(Error::import(at, "a title must be at most 500 characters"));
    }
    Ok(())
}

/// The string at `key` of `object`: `None` when absent (or `null` if `nullable`).
pub(super) fn string(
    object: &Map<String, Value>,
    key: &str,
    parent: &str,
    nullable: bool,
) -> Result<Option<String>> {
    match object.get(key) {
        None => Ok(None),
        Some(Value::Null) if nullable => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(Error::import(path(parent, key), "must be a string")),
    }
}

/// The string at `key`, which must be there.
pub(super) fn required_string(object: &Map<String, Value>, key: &str, parent: &str) -> Result<String> {
    string(object, key, parent, false)?.ok_or_else(|| Error::import(path(parent, key), "missing"))
}
