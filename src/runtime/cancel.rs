//! Cancellation: a token the host trips (from an `AbortSignal`) and the work in
//! flight watches.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures::future::{select, Either};

use crate::error::{Error, Result};

/// A shareable "stop now" flag that wakes whatever awaits it.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Rc<Inner>,
}

#[derive(Default)]
struct Inner {
    cancelled: Cell<bool>,
    wakers: RefCell<Vec<Waker>>,
    callbacks: RefCell<Vec<Box<dyn FnOnce()>>>,
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels: wakes every waiter and runs every `on_cancel` callback, once.
    pub fn cancel(&self) {
        if self.inner.cancelled.replace(true) {
            return;
        }
        for waker in self.inner.wakers.borrow_mut().drain(..) {
            waker.wake();
        }
        let callbacks: Vec<_> = self.inner.callbacks.borrow_mut().drain(..).collect();
        for callback in callbacks {
            callback();
        }
    }

    /// Whether `cancel` was called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.get()
    }

    /// `Err(Aborted)` once cancelled.
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            Err(Error::Aborted)
        } else {
            Ok(())
        }
    }

    /// Runs `callback` on cancellation (at once if already cancelled).
    pub fn on_cancel(&self, callback: impl FnOnce() + 'static) {
        if self.is_cancelled() {
            callback();
        } else {
            self.inner.callbacks.borrow_mut().push(Box::new(callback));
        }
    }

    /// Completes when the token is cancelled.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled { token: self.clone() }
    }

    /// Runs `work` unless cancelled first; cancellation drops it and gives `Aborted`.
    pub async fn run<T>(&self, work: impl Future<Output = Result<T>>) -> Result<T> {
        self.check()?;
        let work = std::pin::pin!(work);
        match select(work, self.cancelled()).await {
            Either::Left((result, _)) => result,
            Either::Right(((), _)) => Err(Error::Aborted),
        }
    }
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

/// The future of [`CancelToken::cancelled`].
pub struct Cancelled {
    token: CancelToken,
}

impl Future for Cancelled {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.token.is_cancelled() {
            Poll::Ready(())
        } else {
            let mut wakers = self.token.inner.wakers.borrow_mut();
            if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
                wakers.push(cx.waker().clone());
            }
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;

    #[test]
    fn cancelling_stops_pending_work_with_aborted() {
        let token = CancelToken::new();
        let mut pool = LocalPool::new();
        let result = Rc::new(RefCell::new(None));
        let (t, r) = (token.clone(), result.clone());
        pool.spawner()
            .spawn_local(async move {
                let outcome = t.run(futures::future::pending::<Result<()>>()).await;
                *r.borrow_mut() = Some(outcome);
            })
            .unwrap();
        pool.run_until_stalled();
        assert!(result.borrow().is_none());
        token.cancel();
        pool.run_until_stalled();
        assert_eq!(*result.borrow(), Some(Err(Error::Aborted)));
    }

    #[test]
    fn callbacks_run_once_and_late_ones_at_once() {
        let token = CancelToken::new();
        let count = Rc::new(Cell::new(0));
        let c = count.clone();
        token.on_cancel(move || c.set(c.get() + 1));
        token.cancel();
        token.cancel();
        let c = count.clone();
        token.on_cancel(move || c.set(c.get() + 10));
        assert_eq!(count.get(), 11);
        assert_eq!(token.check(), Err(Error::Aborted));
    }
}
