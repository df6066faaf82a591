//! Pools that helper threads may serve, by number: in the threaded wasm
//! build every Worker's instance shares one memory, so a helper Worker is
//! handed a pool's number (checked here) rather than its address.

use std::sync::{Arc, Mutex, Weak};

use super::Pool;

/// Pools registered, by number. Numbers are never reused (a stale handle
/// finds nothing, never a newer pool), and each entry's weak count keeps its
/// pool's memory allocated, so a helper's late write to a dropped pool's dead
/// mask lands in memory nothing else uses (a few hundred bytes a decoder).
static POOLS: Mutex<Vec<Weak<Pool>>> = Mutex::new(Vec::new());

/// `pool`'s number, registering it if it is not yet (one number per pool).
pub fn register(pool: &Arc<Pool>) -> u32 {
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    let mine = Arc::downgrade(pool);
    let at = match pools.iter().position(|p| p.ptr_eq(&mine)) {
        Some(at) => at,
        None => {
            pools.push(mine);
            pools.len() - 1
        }
    };
    at as u32
}

/// The pool numbered `number`, if it was registered and still lives.
pub fn registered(number: u32) -> Option<Arc<Pool>> {
    let pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    pools.get(number as usize)?.upgrade()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{register, registered};
    use crate::generation::Pool;

    #[test]
    fn a_pool_is_found_by_its_number_while_it_lives() {
        let pool = Arc::new(Pool::new());
        let number = register(&pool);
        assert_eq!(register(&pool), number, "one number per pool");
        assert!(Arc::ptr_eq(&registered(number).unwrap(), &pool));
        drop(pool);
        assert!(registered(number).is_none(), "a dropped pool is not served");
        let next = Arc::new(Pool::new());
        assert_ne!(register(&next), number, "a number is never given to another pool");
    }

    #[test]
    fn an_unknown_number_finds_nothing() {
        assert!(registered(u32::MAX).is_none());
    }
}
