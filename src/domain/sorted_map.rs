//! [`SortedMap`]: a map kept as a sorted `Vec`.

use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// A map kept as a `Vec` of entries sorted by key: what Lectern needs of
/// `BTreeMap` (lookups by binary search, iteration in key order, JSON as an
/// object), for far less code in the wasm module. Each `BTreeMap<K, V>`
/// instantiates its node splitting and rebalancing anew, about 10 KB a map;
/// this one is a binary search and a `Vec` insert or remove. Inserting and
/// removing move the entries after the key, which is nothing for the
/// conversations a memory store holds, the tools of a page or a config's
/// prompts, headers and prices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        Self { entries: Vec::new() }
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    /// An empty map.
    pub const fn new() -> Self {
        Self { entries: Vec::new() }
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|(k, _)| k)
    }

    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value of `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|at| &self.entries[at].1)
    }

    /// The value of `key`, to change.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|at| &mut self.entries[at].1)
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Sets the value of `key`; the one it replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.entries[at].1, value)),
            Err(at) => {
                self.entries.insert(at, (key, value));
                None
            }
        }
    }

    /// Takes the value of `key` out.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|at| self.entries.remove(at).1)
    }

    /// Takes the entry of the smallest key out.
    pub fn pop_first(&mut self) -> Option<(K, V)> {
        (!self.entries.is_empty()).then(|| self.entries.remove(0))
    }

    /// The value of `key`, made by `make` first if it has none.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let at = match self.find(&key) {
            Ok(at) => at,
            Err(at) => {
                self.entries.insert(at, (key, make()));
                at
            }
        };
        &mut self.entries[at].1
    }

    /// The value of `key`, the default first if it has none.
    pub fn get_or_default(&mut self, key: K) -> &mut V
    where
        V: Default,
    {
        self.get_or_insert_with(key, V::default)
    }

    /// The entries, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.into_iter()
    }

    /// The values, in key order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Keeps the entries `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    /// Later entries of a key replace earlier ones, as `BTreeMap`'s do.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut map = Self::default();
        map.extend(entries);
        map
    }
}

impl<K: Ord, V, const N: usize> From<[(K, V); N]> for SortedMap<K, V> {
    /// Later entries of a key replace earlier ones.
    fn from(entries: [(K, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<K: Ord, V> Extend<(K, V)> for SortedMap<K, V> {
    /// Later entries of a key replace earlier ones.
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, entries: I) {
        for (key, value) in entries {
            self.insert(key, value);
        }
    }
}

impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    /// The entries, in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;

    /// The entries, in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl<K: Serialize, V: Serialize> Serialize for SortedMap<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (key, value) in &self.entries {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for SortedMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

struct MapVisitor<K, V>(PhantomData<(K, V)>);

impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for MapVisitor<K, V> {
    type Value = SortedMap<K, V>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut map = SortedMap::default();
        while let Some((key, value)) = access.next_entry()? {
            map.insert(key, value);
        }
        Ok(map)
    }
}

/// A record's map field, read as serde reads it.
impl<V: DeserializeOwned> crate::json::from_json::FromJson for SortedMap<String, V> {
    fn from_json(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        crate::json::value_de::from_value(value)
    }
}

#[cfg(test)]
mod tests {
    use super::SortedMap;
    use std::collections::BTreeMap;

    /// The same operations on a `BTreeMap` and a `SortedMap` leave the same entries, in the same order.
    #[test]
    fn it_agrees_with_a_btree_map() {
        let mut ours = SortedMap::default();
        let mut theirs = BTreeMap::new();
        let mut seed = 7u32;
        for step in 0..2_000u32 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let key = format!("k{}", (seed >> 16) % 97);
            match step % 5 {
                0 | 1 => assert_eq!(ours.insert(key.clone(), step), theirs.insert(key, step)),
                2 => assert_eq!(ours.remove(key.as_str()), theirs.remove(key.as_str())),
                3 => {
                    *ours.get_or_default(key.clone()) += 1;
                    *theirs.entry(key).or_default() += 1;
                }
                _ => assert_eq!(ours.get(key.as_str()), theirs.get(key.as_str())),
            }
        }
        ours.retain(|_, v| *v % 2 == 0);
        theirs.retain(|_, v| *v % 2 == 0);
        assert!(ours.iter().eq(theirs.iter()));
        assert!(ours.values().eq(theirs.values()));
        assert!(ours.contains_key("k3") == theirs.contains_key("k3"));
        ours.clear();
        assert_eq!(ours.iter().count(), 0);
    }

    /// JSON objects in and out, keys in order, a repeated key's last value kept.
    #[test]
    fn it_reads_and_writes_json_objects() {
        let map: SortedMap<String, u32> = serde_json::from_str(r#"{"b": 2, "a": 1, "b": 3}"#).unwrap();
        assert_eq!(serde_json::to_string(&map).unwrap(), r#"{"a":1,"b":3}"#);
        let err = serde_json::from_str::<SortedMap<String, u32>>("[1]").unwrap_err();
        assert!(err.to_string().contains("an object"), "{err}");
    }
}
