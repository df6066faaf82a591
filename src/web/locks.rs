//! Turn locks shared by every tab of a site: one Web Lock
//! (`navigator.locks`) per database and conversation, so two `Lectern`
//! instances on one database — two tabs, or a tab and a worker — never run
//! turns on one conversation at once.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures::future::LocalBoxFuture;
use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortController;

use crate::agent::{MemoryLocks, TurnGuard, TurnLocks};
use crate::error::Result;

/// A Web Lock named `lectern:<database>:<conversation>` per conversation.
/// Where `navigator.locks` is missing (or refuses, as in an opaque origin),
/// the lock is this instance's own, in memory: then only its own turns queue,
/// and the first time that happens `on_fallback` is called.
pub struct WebLocks {
    database: String,
    fallback: Rc<MemoryLocks>,
    on_fallback: Rc<FallbackNotice>,
}

/// Called once, the first time a lock falls back to the in-memory one.
struct FallbackNotice {
    notice: Box<dyn Fn()>,
    given: Cell<bool>,
}

impl FallbackNotice {
    fn give(&self) {
        if !self.given.replace(true) {
            (self.notice)();
        }
    }
}

impl WebLocks {
    /// Locks for the conversations of the IndexedDB database `database`;
    /// `on_fallback` is called once if Web Locks turn out to be unusable.
    pub fn new(database: &str, on_fallback: impl Fn() + 'static) -> Self {
        WebLocks {
            database: database.to_owned(),
            fallback: Rc::new(MemoryLocks::new()),
            on_fallback: Rc::new(FallbackNotice {
                notice: Box::new(on_fallback),
                given: Cell::new(false),
            }),
        }
    }
}

impl TurnLocks for WebLocks {
    fn lock(&self, conversation_id: &str) -> LocalBoxFuture<'static, Result<TurnGuard>> {
        let name = self.name(conversation_id);
        let (fallback, notice) = (self.fallback.clone(), self.on_fallback.clone());
        let conversation_id = conversation_id.to_owned();
        Box::pin(async move {
            if let Some(request) = LockRequest::start(&name, Wait::Queue) {
                if let Ok(Some(guard)) = request.await {
                    return Ok(guard);
                }
            }
            notice.give();
            fallback.lock(&conversation_id).await
        })
    }

    fn try_lock(&self, conversation_id: &str) -> LocalBoxFuture<'static, Result<Option<TurnGuard>>> {
        let name = self.name(conversation_id);
        let (fallback, notice) = (self.fallback.clone(), self.on_fallback.clone());
        let conversation_id = conversation_id.to_owned();
        Box::pin(async move {
            if let Some(request) = LockRequest::start(&name, Wait::IfAvailable) {
                if let Ok(held) = request.await {
                    return Ok(held);
                }
            }
            notice.give();
            fallback.try_lock(&conversation_id).await
        })
    }
}

impl WebLocks {
    fn name(&self, conversation_id: &str) -> String {
        format!("lectern:{}:{conversation_id}", self.database)
    }
}

/// Whether a request waits for the lock or takes it only if it is free.
#[derive(Clone, Copy, PartialEq)]
enum Wait {
    /// Queue until granted (`lock`).
    Queue,
    /// Granted now or refused (`ifAvailable: true`, for `try_lock`).
    IfAvailable,
}

/// What the lock's callback and the waiting future share.
#[derive(Default)]
struct Shared {
    /// Resolving it releases the lock; set once the lock is granted.
    release: RefCell<Option<Function>>,
    /// The request failed before the lock was granted.
    refused: Cell<bool>,
    /// An `ifAvailable` request found the lock held.
    unavailable: Cell<bool>,
    /// The waiting future was dropped: a grant that comes now is released at once.
    abandoned: Cell<bool>,
    waker: RefCell<Option<Waker>>,
}

impl Shared {
    fn wake(&self) {
        if let Some(waker) = self.waker.borrow_mut().take() {
            waker.wake();
        }
    }
}

/// A pending `navigator.locks.request`; dropped before the grant, it is withdrawn.
struct LockRequest {
    shared: Rc<Shared>,
    withdraw: AbortController,
}

impl LockRequest {
    /// Requests the exclusive lock `name`; `None` without a usable `navigator.locks`.
    fn start(name: &str, wait: Wait) -> Option<LockRequest> {
        let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
        let locks = Reflect::get(&navigator, &"locks".into()).ok()?;
        let request: Function = Reflect::get(&locks, &"request".into()).ok()?.dyn_into().ok()?;
        let withdraw = AbortController::new().ok()?;
        let options = Object::new();
        // A signal is not allowed with `ifAvailable` (nothing waits to be withdrawn).
        match wait {
            Wait::Queue => Reflect::set(&options, &"signal".into(), &withdraw.signal()).ok()?,
            Wait::IfAvailable => Reflect::set(&options, &"ifAvailable".into(), &JsValue::TRUE).ok()?,
        };
        let shared = Rc::new(Shared::default());
        let granted = shared.clone();
        let callback = Closure::<dyn FnMut(JsValue) -> Promise>::new(move |lock: JsValue| {
            if lock.is_null() {
                granted.unavailable.set(true);
                granted.wake();
                return Promise::resolve(&JsValue::UNDEFINED);
            }
            if granted.abandoned.get() {
                return Promise::resolve(&JsValue::UNDEFINED);
            }
            let held = Promise::new(&mut |resolve, _reject| {
                *granted.release.borrow_mut() = Some(resolve);
            });
            granted.wake();
            held
        });
        let settled = request
            .call3(&locks, &JsValue::from_str(name), &options, callback.as_ref())
            .ok()?
            .dyn_into::<Promise>()
            .ok()?;
        // The request settles once the lock is released, or once it was withdrawn
        // or refused; the callback lives until then.
        let watcher = shared.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let outcome = JsFuture::from(settled).await;
            drop(callback);
            if outcome.is_err() && watcher.release.borrow().is_none() {
                watcher.refused.set(true);
                watcher.wake();
            }
        });
        Some(LockRequest { shared, withdraw })
    }
}

impl Future for LockRequest {
    /// The guard (`None` if an `ifAvailable` request found the lock held),
    /// or `Err(())` if the browser refused the request.
    type Output = std::result::Result<Option<TurnGuard>, ()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(release) = self.shared.release.borrow_mut().take() {
            return Poll::Ready(Ok(Some(TurnGuard::holding(Held(release)))));
        }
        if self.shared.unavailable.get() {
            return Poll::Ready(Ok(None));
        }
        if self.shared.refused.get() {
            return Poll::Ready(Err(()));
        }
        *self.shared.waker.borrow_mut() = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for LockRequest {
    fn drop(&mut self) {
        self.shared.abandoned.set(true);
        self.withdraw.abort();
        // Granted but never handed out: release it.
        if let Some(release) = self.shared.release.borrow_mut().take() {
            drop(Held(release));
        }
    }
}

/// A granted Web Lock; dropping it releases the lock.
struct Held(Function);

impl Drop for Held {
    fn drop(&mut self) {
        let _ = self.0.call0(&JsValue::UNDEFINED);
    }
}
