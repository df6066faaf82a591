//! [`sort_by`]: a stable sort with one copy of the sorting code in the wasm module.

use std::cmp::Ordering;

/// Sorts `items` stably by `compare`, as `slice::sort_by` does. The standard
/// sort is instantiated anew for every element type and comparison, about
/// 2 KB of wasm each; this one sorts the items' positions with a comparison
/// behind a `dyn`, so one instantiation serves every caller, then moves the
/// items into their order.
pub fn sort_by<T>(items: &mut Vec<T>, compare: impl Fn(&T, &T) -> Ordering) {
    let order = {
        let items: &[T] = items;
        sorted_positions(items.len(), &|a, b| compare(&items[a], &items[b]))
    };
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(order.into_iter().filter_map(|at| slots[at].take()));
}

/// The positions `0..len` in the order `compare` gives them (stable).
fn sorted_positions(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|a, b| compare(*a, *b));
    order
}

#[cfg(test)]
mod tests {
    use super::sort_by;

    /// The same order as the standard stable sort, equal keys kept in their order.
    #[test]
    fn it_sorts_as_the_standard_stable_sort() {
        let mut seed = 11u32;
        let items: Vec<(u32, usize)> = (0..500)
            .map(|i| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                ((seed >> 16) % 37, i)
            })
            .collect();
        let mut ours = items.clone();
        let mut theirs = items;
        sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
        theirs.sort_by_key(|item| item.0);
        assert_eq!(ours, theirs);
        let mut empty: Vec<String> = Vec::new();
        sort_by(&mut empty, |a, b| a.cmp(b));
        assert!(empty.is_empty());
    }
}
