//! Threads that share the decoder's work: the thread running the decoder
//! (the poster) and helpers, each looping in [`Pool::serve`] on a thread of
//! its own (natively a spawned thread, in the browser a Worker sharing the
//! module's memory).
//!
//! A job is a count of rows (a product's rows, attention's (token, head)
//! pairs, or a prompt piece's tokens for their norms, quantising and gates)
//! and a function of a row range. The poster cuts the rows into parts
//! and publishes the job; the poster and every helper awake claim parts one
//! at a time until none is left, so a helper that wakes late only takes
//! fewer. Helpers spin a while between jobs (a token's jobs follow each other
//! within microseconds), then sleep until the next one. One job runs at a
//! time: a job posted while another runs (from another thread, or from inside
//! a job) runs on its poster alone. A pool no helper serves runs each job on
//! the poster alone.
//!
//! A helper that dies (its Worker trapped: it sets its slot's bit of the
//! dead mask, see [`Pool::dead_mask`]) leaves the part it held unfinished:
//! the poster waits for the other parts, runs the whole job again, and every
//! later job alone.

use std::ops::Range;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// Times a helper, or the waiting poster, looks for its news before sleeping.
const SPINS: u32 = 1 << 17;

/// Parts per thread (more than one, so that a helper that wakes late takes fewer).
const PARTS_PER_THREAD: usize = 4;

/// The most helpers a pool has (slots `0..MAX_HELPERS`).
pub const MAX_HELPERS: usize = 15;

/// The fewest rows of a matrix product worth a part of their own.
pub(crate) const MIN_PART_ROWS: usize = 16;

/// A job's work: rows `range` of it.
pub(crate) type RowWork<'a> = dyn Fn(Range<usize>) + Sync + 'a;

/// What helpers read of the job being run (it lives on the poster's stack
/// while the poster waits for its parts).
struct Job<'a> {
    work: &'a RowWork<'a>,
    rows: usize,
    parts: usize,
}

impl Job<'_> {
    /// Rows of part `part`.
    fn part(&self, part: usize) -> Range<usize> {
        let at = |p: usize| p * self.rows / self.parts;
        at(part)..at(part + 1)
    }
}

/// A decoder's threads: see the module's doc.
#[derive(Default)]
pub struct Pool {
    /// Held by the thread whose job runs (one at a time).
    posting: Mutex<()>,
    /// Helpers in [`Pool::serve`].
    serving: AtomicUsize,
    /// 1 while the helper in that slot runs a part.
    in_part: [AtomicU32; MAX_HELPERS],
    /// Bit `slot` set once the helper in that slot died (by its Worker, see [`Pool::dead_mask`]).
    dead: AtomicU32,
    /// The latest job's number (helpers wait for it to change).
    posted: AtomicU32,
    /// The latest job's number (high 32 bits), its parts (16) and the next part to claim (16).
    claims: AtomicU64,
    /// The latest job, while its parts are claimed and run.
    job: AtomicPtr<Job<'static>>,
    /// Parts of the latest job finished.
    finished: AtomicUsize,
    /// Parts helpers have run, all jobs together.
    helper_parts: AtomicUsize,
    /// Parts of the jobs shared with helpers, all jobs together.
    shared_parts: AtomicUsize,
    /// Helpers are asked to return from [`Pool::serve`].
    stopping: AtomicU32,
    /// Helpers asleep, waiting for a job.
    sleepers: AtomicUsize,
    /// Guards helpers' sleep (with `wake`, notified when a job is posted).
    sleep: Mutex<()>,
    /// Wakes sleeping helpers.
    wake: Condvar,
    /// 1 while the poster sleeps waiting for parts.
    poster_asleep: AtomicU32,
    /// Guards the poster's sleep (with `done`, notified when a part finishes).
    done_lock: Mutex<()>,
    /// Wakes the sleeping poster.
    done: Condvar,
}

impl Pool {
    /// A pool with no helpers yet.
    pub fn new() -> Self {
        Pool::default()
    }

    /// Threads that run a job now: the poster and the helpers serving (1 once
    /// a helper died).
    pub fn threads(&self) -> usize {
        if self.any_dead() {
            1
        } else {
            1 + self.serving.load(Ordering::Acquire)
        }
    }

    /// Parts helpers have run so far (all jobs together).
    pub fn helper_parts(&self) -> usize {
        self.helper_parts.load(Ordering::Relaxed)
    }

    /// Parts of the jobs shared with helpers so far (all jobs together): with
    /// [`Pool::helper_parts`], the share of the work the helpers took.
    pub fn shared_parts(&self) -> usize {
        self.shared_parts.load(Ordering::Relaxed)
    }

    /// Whether a helper died.
    fn any_dead(&self) -> bool {
        self.dead.load(Ordering::Acquire) != 0
    }

    /// Dead helpers that died holding a part (of the job being waited for).
    fn abandoned_parts(&self) -> usize {
        let dead = self.dead.load(Ordering::Acquire);
        (0..MAX_HELPERS)
            .filter(|&slot| dead & (1 << slot) != 0)
            .filter(|&slot| self.in_part[slot].load(Ordering::Acquire) != 0)
            .count()
    }

    /// Marks the helper in `slot` dead.
    fn mark_dead(&self, slot: usize) {
        self.dead.fetch_or(1 << slot, Ordering::SeqCst);
    }

    /// Runs `work` over rows `0..rows`, in parts of at least `min_part` rows
    /// shared with the helpers serving; returns when every part has run.
    /// `work` must give a row the same results each time it runs it (a job a
    /// helper died in runs again).
    pub(crate) fn split(&self, rows: usize, min_part: usize, work: &RowWork<'_>) {
        let threads = self.threads();
        let parts = (threads * PARTS_PER_THREAD)
            .min(rows / min_part.max(1))
            .min(0xffff);
        let posting = if threads > 1 && parts >= 2 {
            self.posting.try_lock().ok()
        } else {
            None
        };
        if posting.is_none() {
            work(0..rows);
            return;
        }
        let job = Job { work, rows, parts };
        self.shared_parts.fetch_add(parts, Ordering::Relaxed);
        let number = self.post(&job);
        while let Some(part) = self.claim(number) {
            self.run_part(&job, part);
        }
        self.wait_for(&job);
        self.job.store(std::ptr::null_mut(), Ordering::Release);
    }

    /// Publishes `job`, wakes sleeping helpers and returns its number.
    fn post(&self, job: &Job<'_>) -> u32 {
        self.finished.store(0, Ordering::Relaxed);
        // SAFETY (of the helpers' reads): a helper reads the job only after
        // claiming one of its parts and before finishing that part, and
        // `split` returns (ending the borrow) only once every part is
        // finished; the pointer is cleared before it returns.
        let erased = job as *const Job<'_> as *mut Job<'static>;
        self.job.store(erased, Ordering::Release);
        let number = self.posted.load(Ordering::Relaxed).wrapping_add(1);
        self.claims
            .store(claims_word(number, job.parts, 0), Ordering::SeqCst);
        self.posted.store(number, Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = self.sleep.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.notify_all();
        }
        number
    }

    /// The next unclaimed part of job `number`, if it is still the latest and has one.
    fn claim(&self, number: u32) -> Option<usize> {
        let mut current = self.claims.load(Ordering::Acquire);
        loop {
            let (job, parts, next) = split_claims(current);
            if job != number || next >= parts {
                return None;
            }
            match self
                .claims
                .compare_exchange_weak(current, current + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(next),
                Err(seen) => current = seen,
            }
        }
    }

    /// Runs part `part` of `job` and counts it finished (waking the poster if it sleeps).
    fn run_part(&self, job: &Job<'_>, part: usize) {
        (job.work)(job.part(part));
        self.finished.fetch_add(1, Ordering::SeqCst);
        if self.poster_asleep.load(Ordering::SeqCst) != 0 {
            let _guard = self.done_lock.lock().unwrap_or_else(|e| e.into_inner());
            self.done.notify_all();
        }
    }

    /// Waits until every part of `job` has run; if a helper died holding a
    /// part, until every other part has, then runs the whole job itself.
    fn wait_for(&self, job: &Job<'_>) {
        let mut spins = 0;
        loop {
            let finished = self.finished.load(Ordering::Acquire);
            if finished >= job.parts {
                return;
            }
            if self.any_dead() && finished + self.abandoned_parts() >= job.parts {
                (job.work)(0..job.rows);
                return;
            }
            if spins < SPINS {
                spins += 1;
                std::hint::spin_loop();
                continue;
            }
            let guard = self.done_lock.lock().unwrap_or_else(|e| e.into_inner());
            self.poster_asleep.store(1, Ordering::SeqCst);
            if self.finished.load(Ordering::SeqCst) < job.parts {
                // A dead helper notifies no one: look again every millisecond.
                let timeout = std::time::Duration::from_millis(1);
                drop(
                    self.done
                        .wait_timeout(guard, timeout)
                        .unwrap_or_else(|e| e.into_inner()),
                );
            }
            self.poster_asleep.store(0, Ordering::SeqCst);
        }
    }

    /// A helper's loop in slot `slot` (below [`MAX_HELPERS`], one helper
    /// each): runs parts of each job posted, until [`Pool::stop`]. A helper
    /// thread that panics marks its slot dead (sets its bit of the dead mask).
    pub fn serve(&self, slot: usize) {
        assert!(slot < MAX_HELPERS, "a pool has {MAX_HELPERS} helper slots");
        let _serving = Serving::start(self, slot);
        let mut seen = self.posted.load(Ordering::Acquire);
        while let Some(number) = self.next_job(seen) {
            seen = number;
            while let Some(part) = self.claim(number) {
                self.in_part[slot].store(1, Ordering::SeqCst);
                // SAFETY: see `post`: the part claimed is unfinished, so the
                // poster is still waiting in `split` and the job alive.
                let job = unsafe { &*self.job.load(Ordering::Acquire) };
                self.run_part(job, part);
                self.in_part[slot].store(0, Ordering::SeqCst);
                self.helper_parts.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The dead mask (a 32-bit word, bit `slot` for the helper in `slot`): a
    /// helper's Worker whose wasm trapped sets its bit with `Atomics.or` (it
    /// cannot call into the trapped instance again).
    pub fn dead_mask(&self) -> *const AtomicU32 {
        &self.dead
    }

    /// Asks every helper serving to return from [`Pool::serve`], and returns
    /// once they have (helpers may serve it again after). Natively only: a
    /// dead Worker never returns.
    pub fn stop(&self) {
        self.stopping.store(1, Ordering::SeqCst);
        {
            let _guard = self.sleep.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.notify_all();
        }
        while self.serving.load(Ordering::SeqCst) > 0 {
            std::thread::yield_now();
        }
        self.stopping.store(0, Ordering::SeqCst);
    }

    /// The number of the next job after `seen`, or `None` when stopping.
    fn next_job(&self, seen: u32) -> Option<u32> {
        for _ in 0..SPINS {
            if self.stopping.load(Ordering::Relaxed) != 0 {
                return None;
            }
            let number = self.posted.load(Ordering::Acquire);
            if number != seen {
                return Some(number);
            }
            std::hint::spin_loop();
        }
        let mut guard = self.sleep.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        let number = loop {
            if self.stopping.load(Ordering::SeqCst) != 0 {
                break None;
            }
            let number = self.posted.load(Ordering::SeqCst);
            if number != seen {
                break Some(number);
            }
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        };
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        number
    }
}

/// A helper's time in [`Pool::serve`]: counted while it lasts; a panic
/// leaving it marks the helper's slot dead (its bit of the dead mask).
struct Serving<'a> {
    pool: &'a Pool,
    slot: usize,
}

impl<'a> Serving<'a> {
    fn start(pool: &'a Pool, slot: usize) -> Self {
        pool.serving.fetch_add(1, Ordering::AcqRel);
        Serving { pool, slot }
    }
}

impl Drop for Serving<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.pool.mark_dead(self.slot);
        }
        self.pool.serving.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The claims word: job number (high 32 bits), parts (16) and next part (16).
fn claims_word(number: u32, parts: usize, next: usize) -> u64 {
    (u64::from(number) << 32) | ((parts as u64) << 16) | next as u64
}

/// A claims word's job number, parts and next part.
fn split_claims(word: u64) -> (u32, usize, usize) {
    (
        (word >> 32) as u32,
        ((word >> 16) & 0xffff) as usize,
        (word & 0xffff) as usize,
    )
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    use super::Pool;

    /// `helpers` threads serving a new pool (slots 0, 1, …), and their handles.
    fn pool_with(helpers: usize) -> (Arc<Pool>, Vec<std::thread::JoinHandle<()>>) {
        let pool = Arc::new(Pool::new());
        let threads = (0..helpers)
            .map(|slot| {
                let pool = Arc::clone(&pool);
                std::thread::spawn(move || pool.serve(slot))
            })
            .collect();
        while pool.threads() < helpers + 1 {
            std::thread::yield_now();
        }
        (pool, threads)
    }

    #[test]
    fn every_row_of_every_job_runs_once_whatever_the_helpers() {
        for helpers in 0..3 {
            let (pool, threads) = pool_with(helpers);
            for rows in [0, 1, 15, 31, 32, 100, 576, 1000] {
                let counts: Vec<AtomicU32> = (0..rows).map(|_| AtomicU32::new(0)).collect();
                pool.split(rows, 16, &|range| {
                    for row in range {
                        counts[row].fetch_add(1, Ordering::Relaxed);
                    }
                });
                assert!(
                    counts.iter().all(|c| c.load(Ordering::Relaxed) == 1),
                    "{helpers} helpers, {rows} rows"
                );
            }
            pool.stop();
            threads.into_iter().for_each(|t| t.join().unwrap());
            assert_eq!(pool.threads(), 1);
        }
    }

    #[test]
    fn a_sleeping_helper_wakes_for_the_next_job() {
        let (pool, threads) = pool_with(1);
        // Long enough for the helper to stop spinning and sleep.
        std::thread::sleep(Duration::from_millis(100));
        let poster = std::thread::current().id();
        let helper_rows = AtomicU32::new(0);
        pool.split(4096, 16, &|range| {
            if std::thread::current().id() != poster {
                helper_rows.fetch_add(range.len() as u32, Ordering::Relaxed);
            }
            std::thread::sleep(Duration::from_millis(5));
        });
        assert!(
            helper_rows.load(Ordering::Relaxed) > 0,
            "the woken helper ran parts"
        );
        pool.stop();
        threads.into_iter().for_each(|t| t.join().unwrap());
    }

    #[test]
    fn a_job_posted_inside_a_job_runs_on_its_poster() {
        let (pool, threads) = pool_with(1);
        let counts: Vec<AtomicU32> = (0..64 * 64).map(|_| AtomicU32::new(0)).collect();
        pool.split(64, 1, &|outer| {
            for o in outer {
                pool.split(64, 1, &|inner| {
                    inner.for_each(|i| {
                        counts[o * 64 + i].fetch_add(1, Ordering::Relaxed);
                    })
                });
            }
        });
        assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        pool.stop();
        threads.into_iter().for_each(|t| t.join().unwrap());
    }

    #[test]
    fn a_helper_that_dies_in_a_part_is_waited_out_then_its_job_rerun() {
        // Helper 0 dies holding a part; helper 1 is still in a slow part of
        // the same job: the poster must not run the job again before it ends.
        let (pool, threads) = pool_with(2);
        let slow_done = AtomicBool::new(false);
        let rerun_early = AtomicBool::new(false);
        let helpers_seen = AtomicU32::new(0);
        let poster = std::thread::current().id();
        pool.split(64, 16, &|range| {
            if range == (0..64) {
                // The poster's rerun of the whole job.
                rerun_early.store(!slow_done.load(Ordering::SeqCst), Ordering::SeqCst);
                return;
            }
            if std::thread::current().id() == poster {
                std::thread::sleep(Duration::from_millis(20));
                return;
            }
            match helpers_seen.fetch_add(1, Ordering::SeqCst) {
                0 => {
                    // Dies in its part: sets its slot's dead bit (as a trapped Worker
                    // does) and never finishes it.
                    let slot = (0..2)
                        .find(|&s| pool.in_part[s].load(Ordering::SeqCst) == 1)
                        .unwrap();
                    pool.mark_dead(slot);
                    std::thread::park_timeout(Duration::from_secs(3600));
                }
                _ => {
                    std::thread::sleep(Duration::from_millis(100));
                    slow_done.store(true, Ordering::SeqCst);
                }
            }
        });
        assert!(
            !rerun_early.load(Ordering::SeqCst),
            "the rerun waited for the healthy helper's part"
        );
        assert_eq!(pool.threads(), 1, "a pool with a dead helper runs alone");
        drop(threads);
    }
}
