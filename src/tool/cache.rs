//! The tool result cache: keyed by tool, scope (the user, the conversation,
//! or everyone) and canonical JSON of the arguments; bounded, least recently
//! used entries evicted first, expired ones dropped on access and insert.

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::Value;

use crate::domain::SortedMap;
use crate::json::from_json::FromJson;

/// How many results a cache keeps by default.
pub const DEFAULT_CACHE_ENTRIES: usize = 1000;

/// Whose calls may share a cached result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, FromJson)]
#[serde(rename_all = "camelCase")]
pub enum CacheScope {
    /// Calls of the same user (the turn's `userId`).
    #[default]
    User,
    /// Calls in the same conversation.
    Conversation,
    /// Every call (opt-in: results that depend on nobody).
    Global,
}

impl CacheScope {
    /// The part of the key this scope adds for a call by `user_id` in
    /// `conversation_id`. Prefixes keep the scopes apart (a user id cannot
    /// pose as a conversation), and a turn without a user is its own partition.
    pub fn partition(self, user_id: Option<&str>, conversation_id: &str) -> String {
        match (self, user_id) {
            (CacheScope::User, Some(user)) => format!("user:{user}"),
            (CacheScope::User, None) => "no user".to_owned(),
            (CacheScope::Conversation, _) => format!("conversation:{conversation_id}"),
            (CacheScope::Global, _) => "global".to_owned(),
        }
    }
}

/// Tool, partition, canonical arguments.
type Key = (String, String, String);

#[derive(Debug)]
struct Entry {
    expires_at: f64,
    result: String,
    /// When it was last used, on the cache's own counter.
    used: u64,
}

#[derive(Debug, Default)]
struct Entries {
    by_key: HashMap<Key, Entry>,
    /// Keys by last use, oldest first.
    by_use: SortedMap<u64, Key>,
    clock: u64,
}

impl Entries {
    fn remove(&mut self, key: &Key) {
        if let Some(entry) = self.by_key.remove(key) {
            self.by_use.remove(&entry.used);
        }
    }

    fn touch(&mut self, key: &Key) {
        self.clock += 1;
        if let Some(entry) = self.by_key.get_mut(key) {
            self.by_use.remove(&entry.used);
            entry.used = self.clock;
            self.by_use.insert(self.clock, key.clone());
        }
    }

    fn evict_expired(&mut self, now_ms: f64) {
        let expired: Vec<Key> = self
            .by_key
            .iter()
            .filter(|(_, e)| e.expires_at <= now_ms)
            .map(|(k, _)| k.clone())
            .collect();
        for key in &expired {
            self.remove(key);
        }
    }
}

/// Results of tools that opted in, until their TTL runs out; at most
/// `capacity` of them.
#[derive(Debug)]
pub struct ToolCache {
    entries: RefCell<Entries>,
    capacity: usize,
}

impl Default for ToolCache {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_CACHE_ENTRIES)
    }
}

/// The cache key of a call: `serde_json` orders object keys, so equal
/// arguments written in any key order give the same text.
fn key(tool: &str, partition: &str, arguments: &Value) -> Key {
    (tool.to_owned(), partition.to_owned(), arguments.to_string())
}

impl ToolCache {
    /// An empty cache of [`DEFAULT_CACHE_ENTRIES`].
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty cache that keeps at most `capacity` results (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        ToolCache {
            entries: RefCell::new(Entries::default()),
            capacity: capacity.max(1),
        }
    }

    /// The cached result of `tool` for `arguments` in `partition`, if fresh at `now_ms`.
    pub fn get(&self, tool: &str, partition: &str, arguments: &Value, now_ms: f64) -> Option<String> {
        let key = key(tool, partition, arguments);
        let mut entries = self.entries.borrow_mut();
        let result = match entries.by_key.get(&key) {
            Some(entry) if entry.expires_at > now_ms => entry.result.clone(),
            Some(_) => {
                entries.remove(&key);
                return None;
            }
            None => return None,
        };
        entries.touch(&key);
        Some(result)
    }

    /// Keeps `result` until `now_ms + ttl_ms`, after dropping expired results
    /// and, if the cache is full, the least recently used one.
    pub fn put(
        &self,
        tool: &str,
        partition: &str,
        arguments: &Value,
        result: String,
        now_ms: f64,
        ttl_ms: u64,
    ) {
        let key = key(tool, partition, arguments);
        let mut entries = self.entries.borrow_mut();
        entries.remove(&key);
        entries.evict_expired(now_ms);
        while entries.by_key.len() >= self.capacity {
            let Some((_, oldest)) = entries.by_use.pop_first() else {
                break;
            };
            entries.by_key.remove(&oldest);
        }
        let entry = Entry {
            expires_at: now_ms + ttl_ms as f64,
            result,
            used: 0,
        };
        entries.by_key.insert(key.clone(), entry);
        entries.touch(&key);
    }

    /// How many results are held.
    pub fn len(&self) -> usize {
        self.entries.borrow().by_key.len()
    }

    /// Whether no results are held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets the results of `tool` for `arguments` (written in any key
    /// order), in every partition; returns how many there were.
    pub fn forget(&self, tool: &str, arguments: &Value) -> usize {
        let canonical = arguments.to_string();
        self.remove_where(|key| key.0 == tool && key.2 == canonical)
    }

    /// Forgets the results of one tool, or of all tools.
    pub fn clear(&self, tool: Option<&str>) {
        match tool {
            Some(name) => {
                self.remove_where(|key| key.0 == name);
            }
            None => *self.entries.borrow_mut() = Entries::default(),
        }
    }

    /// Forgets every result whose key `matches`; returns how many.
    fn remove_where(&self, matches: impl Fn(&Key) -> bool) -> usize {
        let mut entries = self.entries.borrow_mut();
        let keys: Vec<Key> = entries.by_key.keys().filter(|k| matches(k)).cloned().collect();
        for key in &keys {
            entries.remove(key);
        }
        keys.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_matter_and_entries_expire() {
        let cache = ToolCache::new();
        cache.put("t", "", &json!({"a": 1, "b": 2}), "r".into(), 0.0, 100);
        assert_eq!(
            cache.get("t", "", &json!({"b": 2, "a": 1}), 50.0).as_deref(),
            Some("r")
        );
        assert_eq!(cache.get("t", "", &json!({"a": 1, "b": 3}), 50.0), None);
        assert_eq!(cache.get("other", "", &json!({"a": 1, "b": 2}), 50.0), None);
        assert_eq!(cache.get("t", "", &json!({"a": 1, "b": 2}), 100.0), None);
    }

    #[test]
    fn clear_one_tool_or_all() {
        let cache = ToolCache::new();
        cache.put("a", "", &json!({}), "1".into(), 0.0, 1000);
        cache.put("b", "", &json!({}), "2".into(), 0.0, 1000);
        cache.clear(Some("a"));
        assert_eq!(cache.get("a", "", &json!({}), 1.0), None);
        assert!(cache.get("b", "", &json!({}), 1.0).is_some());
        cache.clear(None);
        assert_eq!(cache.get("b", "", &json!({}), 1.0), None);
    }

    #[test]
    fn scopes_partition_the_cache() {
        let alice = CacheScope::User.partition(Some("alice"), "c1");
        let bob = CacheScope::User.partition(Some("bob"), "c1");
        let nobody = CacheScope::User.partition(None, "c1");
        assert_ne!(alice, bob);
        assert_ne!(nobody, CacheScope::User.partition(Some(""), "c1"));
        assert_eq!(alice, CacheScope::User.partition(Some("alice"), "c2"));
        let c1 = CacheScope::Conversation.partition(Some("alice"), "c1");
        assert_ne!(c1, CacheScope::Conversation.partition(Some("alice"), "c2"));
        assert_eq!(c1, CacheScope::Conversation.partition(Some("bob"), "c1"));
        let global = CacheScope::Global.partition(Some("alice"), "c1");
        assert_eq!(global, CacheScope::Global.partition(None, "c2"));
        // A user id cannot pose as a conversation or as the global partition.
        assert_ne!(CacheScope::User.partition(Some("c1"), "x"), c1);
        assert_ne!(CacheScope::User.partition(Some("global"), "x"), global);

        let cache = ToolCache::new();
        cache.put("t", &alice, &json!({}), "alice's".into(), 0.0, 1000);
        assert_eq!(cache.get("t", &bob, &json!({}), 1.0), None);
        assert_eq!(
            cache.get("t", &alice, &json!({}), 1.0).as_deref(),
            Some("alice's")
        );
    }

    #[test]
    fn the_least_recently_used_entry_goes_when_full() {
        let cache = ToolCache::with_capacity(3);
        for name in ["a", "b", "c"] {
            cache.put(name, "", &json!({}), name.into(), 0.0, 1000);
        }
        assert!(
            cache.get("a", "", &json!({}), 1.0).is_some(),
            "a is used: b is now the oldest"
        );
        cache.put("d", "", &json!({}), "d".into(), 2.0, 1000);
        assert_eq!(cache.len(), 3);
        assert_eq!(cache.get("b", "", &json!({}), 3.0), None, "evicted");
        for name in ["a", "c", "d"] {
            assert!(cache.get(name, "", &json!({}), 3.0).is_some(), "{name} kept");
        }
        let default = ToolCache::new();
        for i in 0..DEFAULT_CACHE_ENTRIES + 10 {
            default.put("t", "", &json!({ "i": i }), "r".into(), 0.0, 1000);
        }
        assert_eq!(default.len(), DEFAULT_CACHE_ENTRIES);
        assert_eq!(default.get("t", "", &json!({ "i": 0 }), 1.0), None);
    }

    #[test]
    fn expired_entries_are_evicted_before_fresh_ones() {
        let cache = ToolCache::with_capacity(3);
        cache.put("short", "", &json!({}), "s".into(), 0.0, 10);
        cache.put("long1", "", &json!({}), "1".into(), 0.0, 1000);
        cache.put("long2", "", &json!({}), "2".into(), 0.0, 1000);
        // At 20 ms "short" has expired: a new entry evicts it, not the oldest fresh one.
        cache.put("new", "", &json!({}), "n".into(), 20.0, 1000);
        assert_eq!(cache.len(), 3);
        assert!(cache.get("long1", "", &json!({}), 21.0).is_some());
        // Expired entries go on insert even when the cache is not full.
        let roomy = ToolCache::with_capacity(10);
        roomy.put("short", "", &json!({}), "s".into(), 0.0, 10);
        roomy.put("other", "", &json!({}), "o".into(), 20.0, 1000);
        assert_eq!(roomy.len(), 1);
    }
}
