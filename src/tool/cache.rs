//! Per-tool result cache, keyed by tool name and canonical JSON of the arguments.

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::Value;

/// Results of tools that opted in, until their TTL runs out.
#[derive(Debug, Default)]
pub struct ToolCache {
    entries: RefCell<HashMap<(String, String), (f64, String)>>,
}

/// The cache key of a call: `serde_json` orders object keys, so equal
/// arguments written in any key order give the same text.
fn canonical(arguments: &Value) -> String {
    arguments.to_string()
}

impl ToolCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The cached result of `tool` for `arguments`, if fresh at `now_ms`.
    pub fn get(&self, tool: &str, arguments: &Value, now_ms: f64) -> Option<String> {
        let key = (tool.to_owned(), canonical(arguments));
        let mut entries = self.entries.borrow_mut();
        match entries.get(&key) {
            Some((expires, result)) if *expires > now_ms => Some(result.clone()),
            Some(_) => {
                entries.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Keeps `result` until `now_ms + ttl_ms`.
    pub fn put(&self, tool: &str, arguments: &Value, result: String, now_ms: f64, ttl_ms: u64) {
        let key = (tool.to_owned(), canonical(arguments));
        self.entries
            .borrow_mut()
            .insert(key, (now_ms + ttl_ms as f64, result));
    }

    /// Forgets the results of one tool, or of all tools.
    pub fn clear(&self, tool: Option<&str>) {
        match tool {
            Some(name) => self.entries.borrow_mut().retain(|(t, _), _| t != name),
            None => self.entries.borrow_mut().clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_matter_and_entries_expire() {
        let cache = ToolCache::new();
        cache.put("t", &json!({"a": 1, "b": 2}), "r".into(), 0.0, 100);
        assert_eq!(
            cache.get("t", &json!({"b": 2, "a": 1}), 50.0).as_deref(),
            Some("r")
        );
        assert_eq!(cache.get("t", &json!({"a": 1, "b": 3}), 50.0), None);
        assert_eq!(cache.get("other", &json!({"a": 1, "b": 2}), 50.0), None);
        assert_eq!(cache.get("t", &json!({"a": 1, "b": 2}), 100.0), None);
    }

    #[test]
    fn clear_one_tool_or_all() {
        let cache = ToolCache::new();
        cache.put("a", &json!({}), "1".into(), 0.0, 1000);
        cache.put("b", &json!({}), "2".into(), 0.0, 1000);
        cache.clear(Some("a"));
        assert_eq!(cache.get("a", &json!({}), 1.0), None);
        assert!(cache.get("b", &json!({}), 1.0).is_some());
        cache.clear(None);
        assert_eq!(cache.get("b", &json!({}), 1.0), None);
    }
}
