//! `Lectern.open`'s `sync` option: the instance follows the user's synced
//! document through `lectern/sync`'s `followSync`, which `sync_host.js`
//! loads (with the sync module) only when the option is set.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::error::{Error, Result};
use crate::wasm::js::take_key;
use crate::wasm::page::host::listeners::Listeners;

#[wasm_bindgen(module = "/src/wasm/page/host/sync_host.js")]
extern "C" {
    /// What is wrong with the `sync` option (a message), or `null`.
    #[wasm_bindgen(js_name = syncProblem)]
    fn sync_problem(sync: &JsValue) -> Option<String>;

    /// Loads `lectern/sync` and makes `lectern` follow the document: resolves with the follower.
    #[wasm_bindgen(js_name = startSync)]
    fn start_sync(lectern: &JsValue, options: &JsValue, emit: &Function) -> Promise;

    /// `lectern/sync`'s `SyncFollower`.
    #[derive(Clone)]
    type SyncFollower;

    /// Records a page turned here, for every device.
    #[wasm_bindgen(method, js_name = pageTurned)]
    fn page_turned(this: &SyncFollower, book_id: &str, page: f64);

    /// Stops following, once what it was writing is written.
    #[wasm_bindgen(method)]
    fn close(this: &SyncFollower) -> Promise;
}

/// An instance's sync: the option it was opened with, then its follower.
#[derive(Default)]
pub struct SyncFollow {
    /// The checked `sync` option, or `undefined`.
    options: JsValue,
    follower: RefCell<Option<SyncFollower>>,
}

impl SyncFollow {
    /// Takes `sync` out of the open options (`copy`, a copy of the host's) and checks it.
    pub fn take(copy: &Object) -> Result<Self> {
        let mut options = take_key(copy, "sync");
        if options.is_null() {
            options = JsValue::UNDEFINED;
        }
        if !options.is_undefined() {
            if let Some(problem) = sync_problem(&options) {
                return Err(Error::config(problem));
            }
        }
        Ok(SyncFollow {
            options,
            follower: RefCell::new(None),
        })
    }

    /// With `sync`: loads the sync module and starts following. `lectern` is
    /// the instance's JS object; its `syncStatus` and `synced` events go to
    /// `listeners`. Without `sync`, nothing.
    pub async fn start(
        &self,
        lectern: &JsValue,
        listeners: &Rc<Listeners>,
    ) -> std::result::Result<(), JsValue> {
        if self.options.is_undefined() {
            return Ok(());
        }
        let heard = listeners.clone();
        let emit = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| heard.emit(&event));
        let emit: Function = emit.into_js_value().unchecked_into();
        let follower = JsFuture::from(start_sync(lectern, &self.options, &emit)).await?;
        self.follower.replace(Some(follower.unchecked_into()));
        Ok(())
    }

    /// The follower, or `undefined` without `sync`.
    pub fn follower(&self) -> JsValue {
        self.follower
            .borrow()
            .as_ref()
            .map_or(JsValue::UNDEFINED, |f| f.clone().into())
    }

    /// Tells the follower (if any) that `book` (a stored `Book`) is at its current page now.
    pub fn page_turned(&self, book: &JsValue) {
        let Some(follower) = self.follower.borrow().clone() else {
            return;
        };
        let field = |name: &str| Reflect::get(book, &name.into()).unwrap_or(JsValue::UNDEFINED);
        if let (Some(id), Some(page)) = (field("id").as_string(), field("currentPage").as_f64()) {
            follower.page_turned(&id, page);
        }
    }

    /// Stops following (if it was), once what the follower was writing is written.
    pub async fn close(&self) {
        let follower = self.follower.borrow_mut().take();
        if let Some(follower) = follower {
            let _ = JsFuture::from(follower.close()).await;
        }
    }
}
