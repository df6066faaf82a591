//! Time-ordered, collision-resistant ids.

/// A new id: 12 hex digits of milliseconds then 16 random hex digits.
///
/// Ids made later sort after ids made earlier (to the millisecond).
pub fn new_id(now_ms: f64) -> String {
    let mut random = [0u8; 8];
    if getrandom::getrandom(&mut random).is_err() {
        // No entropy source: fall back to a process-wide counter mixed with time.
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(1);
        random = (COUNTER.fetch_add(1, Ordering::Relaxed) ^ now_ms.to_bits()).to_le_bytes();
    }
    format!("{:012x}{:016x}", now_ms as u64, u64::from_le_bytes(random))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_time_ordered() {
        let a = new_id(1_000.0);
        let b = new_id(1_000.0);
        let c = new_id(2_000.0);
        assert_ne!(a, b);
        assert!(a < c && b < c);
        assert_eq!(a.len(), 28);
    }
}
