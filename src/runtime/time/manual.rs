//! A clock that only moves when told to, for deterministic tests.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::{pin, Pin};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use futures::future::LocalBoxFuture;
use futures::task::ArcWake;

use super::Clock;

/// A test clock. Made with [`ManualClock::new`], a `sleep` that is awaited
/// advances time at once and records the wait; one that loses a race (is never
/// polled) leaves time alone. Made with [`ManualClock::with_timers`], a `sleep`
/// waits until the clock reaches its end — through [`ManualClock::advance`], or
/// [`ManualClock::drive`], which moves to the next timer whenever nothing else
/// can make progress — so real races (a lock wait against a slow tool, a turn
/// limit against a running tool) play out in order without real waiting.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    now: Rc<Cell<f64>>,
    slept: Rc<Cell<u64>>,
    timers: Option<Rc<Timers>>,
}

/// The pending sleeps of a clock with timers.
#[derive(Debug, Default)]
struct Timers {
    next_id: Cell<u64>,
    /// (id, end, waker of its sleep once polled)
    waiting: RefCell<Vec<(u64, f64, Option<Waker>)>>,
}

impl ManualClock {
    /// A clock reading `start_ms` whose sleeps end as soon as they are awaited.
    pub fn new(start_ms: f64) -> Self {
        ManualClock {
            now: Rc::new(Cell::new(start_ms)),
            slept: Rc::new(Cell::new(0)),
            timers: None,
        }
    }

    /// A clock reading `start_ms` whose sleeps end only when time reaches them.
    pub fn with_timers(start_ms: f64) -> Self {
        ManualClock {
            timers: Some(Rc::new(Timers::default())),
            ..ManualClock::new(start_ms)
        }
    }

    /// Moves the clock forward, waking the sleeps that end by then.
    pub fn advance(&self, ms: f64) {
        self.now.set(self.now.get() + ms);
        if let Some(timers) = &self.timers {
            let now = self.now.get();
            let due: Vec<Waker> = timers
                .waiting
                .borrow_mut()
                .iter_mut()
                .filter(|(_, end, _)| *end <= now)
                .filter_map(|(_, _, waker)| waker.take())
                .collect();
            due.into_iter().for_each(Waker::wake);
        }
    }

    /// Total milliseconds of the sleeps that ended.
    pub fn total_slept_ms(&self) -> u64 {
        self.slept.get()
    }

    /// How many sleeps are waiting (with timers); a dropped sleep no longer counts.
    pub fn pending_timers(&self) -> usize {
        self.timers.as_ref().map_or(0, |t| t.waiting.borrow().len())
    }

    /// Runs `future` to completion on this thread. Whenever nothing can make
    /// progress, the clock moves to the end of the earliest waiting sleep.
    /// Panics if nothing can make progress and no sleep waits (a deadlock):
    /// everything `future` awaits must be ready, driven by this clock, or woken
    /// from within `future`.
    pub fn drive<F: Future>(&self, future: F) -> F::Output {
        let flag = Arc::new(Flag(AtomicBool::new(true)));
        let waker = futures::task::waker(flag.clone());
        let mut cx = Context::from_waker(&waker);
        let mut future = pin!(future);
        loop {
            while flag.0.swap(false, Ordering::SeqCst) {
                if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                    return output;
                }
            }
            let next = self.timers.as_ref().and_then(|timers| {
                timers
                    .waiting
                    .borrow()
                    .iter()
                    .map(|(_, end, _)| *end)
                    .reduce(f64::min)
            });
            match next {
                Some(end) => self.advance((end - self.now.get()).max(0.0)),
                None => panic!("ManualClock::drive: nothing can make progress and no sleep is waiting"),
            }
        }
    }
}

/// The waker of [`ManualClock::drive`]: a flag saying "poll again".
struct Flag(AtomicBool);

impl ArcWake for Flag {
    fn wake_by_ref(arc_self: &Arc<Self>) {
        arc_self.0.store(true, Ordering::SeqCst);
    }
}

/// A sleep of a clock with timers: ends once the clock reaches `end`.
struct TimerSleep {
    clock: ManualClock,
    timers: Rc<Timers>,
    id: u64,
    end: f64,
    ms: u64,
}

impl Future for TimerSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut waiting = self.timers.waiting.borrow_mut();
        let Some(index) = waiting.iter().position(|(id, _, _)| *id == self.id) else {
            return Poll::Ready(());
        };
        if self.clock.now_ms() >= self.end {
            waiting.remove(index);
            self.clock.slept.set(self.clock.slept.get() + self.ms);
            return Poll::Ready(());
        }
        waiting[index].2 = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for TimerSleep {
    fn drop(&mut self) {
        self.timers
            .waiting
            .borrow_mut()
            .retain(|(id, _, _)| *id != self.id);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> f64 {
        self.now.get()
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let clock = self.clone();
        match &self.timers {
            None => Box::pin(async move {
                clock.slept.set(clock.slept.get() + ms);
                clock.advance(ms as f64);
            }),
            Some(timers) => {
                let id = timers.next_id.get();
                timers.next_id.set(id + 1);
                let end = self.now_ms() + ms as f64;
                timers.waiting.borrow_mut().push((id, end, None));
                Box::pin(TimerSleep {
                    clock,
                    timers: timers.clone(),
                    id,
                    end,
                    ms,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeping_advances_time_without_waiting() {
        let clock = ManualClock::new(10.0);
        let unpolled = clock.sleep(1000);
        drop(unpolled);
        assert_eq!(clock.now_ms(), 10.0, "a sleep never awaited does not move time");
        futures::executor::block_on(clock.sleep(500));
        assert_eq!(clock.now_ms(), 510.0);
        assert_eq!(clock.total_slept_ms(), 500);
    }

    #[test]
    fn timers_end_in_order_and_dropped_ones_are_forgotten() {
        let clock = ManualClock::with_timers(0.0);
        let order = RefCell::new(Vec::new());
        let sleeper = |ms: u64| {
            let (clock, order) = (clock.clone(), &order);
            async move {
                clock.sleep(ms).await;
                order.borrow_mut().push((ms, clock.now_ms()));
            }
        };
        let forgotten = clock.sleep(5);
        drop(forgotten);
        assert_eq!(clock.pending_timers(), 0);
        clock.drive(async { futures::join!(sleeper(30), sleeper(10), sleeper(20)) });
        assert_eq!(*order.borrow(), [(10, 10.0), (20, 20.0), (30, 30.0)]);
        assert_eq!(clock.now_ms(), 30.0, "never past the last timer");
        assert_eq!(clock.pending_timers(), 0);
    }

    #[test]
    fn a_race_against_a_longer_timer_leaves_it_waiting_until_dropped() {
        let clock = ManualClock::with_timers(0.0);
        let long = clock.sleep(1_000);
        clock.drive(clock.sleep(10));
        assert_eq!((clock.now_ms(), clock.pending_timers()), (10.0, 1));
        drop(long);
        assert_eq!(clock.pending_timers(), 0);
    }
}
