//! Threads that share the rows of the decoder's matrix products: the thread
//! running the decoder (the poster) and helpers, each looping in
//! [`Pool::serve`] on a thread of its own (natively a spawned thread, in the
//! browser a Worker sharing the module's memory).
//!
//! A job is a row count and a function of a row range. The poster cuts the
//! rows into parts and publishes the job; the poster and every helper awake
//! claim parts one at a time until none is left, so a helper that wakes late
//! only takes fewer. Helpers spin a while between jobs (a token's products
//! follow each other within microseconds), then sleep until the next one. A
//! pool no helper serves runs each job on the poster alone.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// Times a helper, or the waiting poster, looks for its news before sleeping.
const SPINS: u32 = 1 << 17;

/// Parts per thread (more than one, so that a helper that wakes late takes fewer).
const PARTS_PER_THREAD: usize = 4;

/// The fewest rows of a matrix product worth a part of their own.
pub const MIN_PART_ROWS: usize = 16;

/// A job's work: rows `range` of its products.
pub type RowWork<'a> = dyn Fn(Range<usize>) + Sync + 'a;

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
    /// Helpers in [`Pool::serve`].
    serving: AtomicUsize,
    /// The latest job's number (helpers wait for it to change).
    posted: AtomicU32,
    /// The latest job's number (high half) and the next part to claim (low half).
    claims: AtomicU64,
    /// The latest job, while its parts are claimed and run.
    job: AtomicPtr<Job<'static>>,
    /// Parts of the latest job finished.
    finished: AtomicUsize,
    /// A helper failed (its Worker trapped): the poster runs every job alone from then on.
    failed: AtomicBool,
    /// Helpers are asked to return from [`Pool::serve`].
    stopping: AtomicBool,
    /// Helpers asleep, waiting for a job.
    sleepers: AtomicUsize,
    sleep: Mutex<()>,
    wake: Condvar,
    /// Whether the poster sleeps waiting for parts.
    poster_asleep: AtomicBool,
    done_lock: Mutex<()>,
    done: Condvar,
}

impl Pool {
    /// A pool with no helpers yet.
    pub fn new() -> Self {
        Pool::default()
    }

    /// Threads that run a job now: the poster and the helpers serving.
    pub fn threads(&self) -> usize {
        if self.failed.load(Ordering::Acquire) {
            1
        } else {
            1 + self.serving.load(Ordering::Acquire)
        }
    }

    /// Runs `work` over rows `0..rows`, in parts of at least `min_part`
    /// rows shared with the helpers serving; returns when every part has run.
    pub fn split(&self, rows: usize, min_part: usize, work: &RowWork<'_>) {
        let threads = self.threads();
        let parts = (threads * PARTS_PER_THREAD).min(rows / min_part.max(1));
        if threads == 1 || parts < 2 {
            work(0..rows);
            return;
        }
        let job = Job { work, rows, parts };
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
        if self.poster_asleep.load(Ordering::SeqCst) {
            let _guard = self.done_lock.lock().unwrap_or_else(|e| e.into_inner());
            self.done.notify_all();
        }
    }

    /// Waits until every part of `job` has run (running them all itself if a
    /// helper failed: a part it had claimed may be unfinished).
    fn wait_for(&self, job: &Job<'_>) {
        let mut spins = 0;
        while self.finished.load(Ordering::Acquire) < job.parts {
            if self.failed.load(Ordering::Acquire) {
                (job.work)(0..job.rows);
                return;
            }
            if spins < SPINS {
                spins += 1;
                std::hint::spin_loop();
                continue;
            }
            let guard = self.done_lock.lock().unwrap_or_else(|e| e.into_inner());
            self.poster_asleep.store(true, Ordering::SeqCst);
            if self.finished.load(Ordering::SeqCst) < job.parts && !self.failed.load(Ordering::SeqCst) {
                let timeout = std::time::Duration::from_millis(1);
                drop(
                    self.done
                        .wait_timeout(guard, timeout)
                        .unwrap_or_else(|e| e.into_inner()),
                );
            }
            self.poster_asleep.store(false, Ordering::SeqCst);
        }
    }

    /// A helper's loop: runs parts of each job posted, until [`Pool::stop`].
    pub fn serve(&self) {
        self.serving.fetch_add(1, Ordering::AcqRel);
        let mut seen = self.posted.load(Ordering::Acquire);
        while let Some(number) = self.next_job(seen) {
            seen = number;
            while let Some(part) = self.claim(number) {
                // SAFETY: see `post`: the part claimed is unfinished, so the
                // poster is still waiting in `split` and the job alive.
                let job = unsafe { &*self.job.load(Ordering::Acquire) };
                self.run_part(job, part);
            }
        }
        self.serving.fetch_sub(1, Ordering::AcqRel);
    }

    /// Tells the poster that a helper failed in a job (its Worker trapped):
    /// the poster runs that job again, and every later one, alone.
    pub fn helper_failed(&self) {
        self.serving.fetch_sub(1, Ordering::AcqRel);
        self.failed.store(true, Ordering::SeqCst);
        let _guard = self.done_lock.lock().unwrap_or_else(|e| e.into_inner());
        self.done.notify_all();
    }

    /// Asks every helper serving to return from [`Pool::serve`], and returns
    /// once they have (helpers may serve it again after).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        {
            let _guard = self.sleep.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.notify_all();
        }
        while self.serving.load(Ordering::SeqCst) > 0 {
            std::thread::yield_now();
        }
        self.stopping.store(false, Ordering::SeqCst);
    }

    /// The number of the next job after `seen`, or `None` when stopping.
    fn next_job(&self, seen: u32) -> Option<u32> {
        for _ in 0..SPINS {
            if self.stopping.load(Ordering::Relaxed) {
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
            if self.stopping.load(Ordering::SeqCst) {
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
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;

    use super::Pool;

    /// `helpers` threads serving a new pool, and their handles.
    fn pool_with(helpers: usize) -> (Arc<Pool>, Vec<std::thread::JoinHandle<()>>) {
        let pool = Arc::new(Pool::new());
        let threads = (0..helpers)
            .map(|_| {
                let pool = Arc::clone(&pool);
                std::thread::spawn(move || pool.serve())
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
    fn helpers_take_parts_and_sleep_between_jobs() {
        let (pool, threads) = pool_with(1);
        let helper_rows = AtomicU32::new(0);
        let poster = std::thread::current().id();
        for _ in 0..200 {
            pool.split(4096, 16, &|range| {
                if std::thread::current().id() != poster {
                    helper_rows.fetch_add(range.len() as u32, Ordering::Relaxed);
                }
                std::thread::sleep(std::time::Duration::from_micros(20));
            });
        }
        // Long enough for the helper to sleep, then a job wakes it.
        std::thread::sleep(std::time::Duration::from_millis(50));
        pool.split(4096, 16, &|_| {
            std::thread::sleep(std::time::Duration::from_micros(200))
        });
        assert!(helper_rows.load(Ordering::Relaxed) > 0, "the helper ran parts");
        pool.stop();
        threads.into_iter().for_each(|t| t.join().unwrap());
    }

    #[test]
    fn after_a_helper_fails_the_poster_runs_every_row_itself() {
        let pool = Pool::new();
        // A helper that claims a part and dies in it: its part never finishes.
        pool.serving.fetch_add(1, Ordering::AcqRel);
        assert_eq!(pool.threads(), 2);
        let counts: Vec<AtomicU32> = (0..256).map(|_| AtomicU32::new(0)).collect();
        let seen = pool.posted.load(Ordering::Acquire);
        std::thread::scope(|scope| {
            let failing = scope.spawn(|| {
                let number = pool.next_job(seen).unwrap();
                assert!(pool.claim(number).is_some());
                pool.helper_failed();
            });
            pool.split(256, 16, &|range| {
                // Slow parts: the failing helper claims one before the poster has them all.
                std::thread::sleep(std::time::Duration::from_millis(20));
                for row in range {
                    counts[row].fetch_add(1, Ordering::Relaxed);
                }
            });
            failing.join().unwrap();
        });
        assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) >= 1));
        assert_eq!(pool.threads(), 1);
    }
}
