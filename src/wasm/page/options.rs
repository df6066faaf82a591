//! `Lectern.open(options)`: splitting what the host passed into its
//! functions and the data [`OpenOptions`] reads and checks.

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::agent::{HostFunctions, OpenOptions};
use crate::error::{Error, Result};
use crate::wasm::js::{from_js, take_key};
use crate::wasm::page::host::approval_options::take_policy_functions;
use crate::wasm::page::host::sync_follow::SyncFollow;

/// The host functions among the options.
#[derive(Default)]
pub struct Callbacks {
    /// `onEvent`.
    pub on_event: Option<Function>,
    /// `provider.call`, for a custom provider.
    pub provider_call: Option<Function>,
    /// `resolveMention`.
    pub resolve_mention: Option<Function>,
    /// `embedder.embed`, for a custom embedder.
    pub embed: Option<Function>,
    /// Policy functions of `approvals.tools`, by tool name.
    pub policy_functions: Vec<(String, Function)>,
    /// `sync`, checked (its follower starts once the instance is open).
    pub sync: SyncFollow,
}

/// Takes the function at `key` out of `object` (a copy), if there is one.
fn take_function(object: &Object, key: &str) -> Result<Option<Function>> {
    let value = take_key(object, key);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<Function>()
        .map(Some)
        .map_err(|_| Error::config(format!("{key} must be a function")))
}

/// Splits the host's options into the serialisable part and the callbacks.
pub fn read_options(options: &JsValue) -> Result<(OpenOptions, Callbacks)> {
    if !options.is_object() {
        return Err(Error::config("Lectern.open needs an options object"));
    }
    let copy = Object::assign(&Object::new(), options.unchecked_ref());
    let mut callbacks = Callbacks {
        on_event: take_function(&copy, "onEvent")?,
        resolve_mention: take_function(&copy, "resolveMention")?,
        provider_call: None,
        embed: None,
        policy_functions: take_policy_functions(&copy)?,
        sync: SyncFollow::take(&copy)?,
    };
    let embedder = Reflect::get(&copy, &"embedder".into()).unwrap_or(JsValue::UNDEFINED);
    if embedder.is_object() {
        let embedder = Object::assign(&Object::new(), embedder.unchecked_ref());
        callbacks.embed = take_function(&embedder, "embed")
            .map_err(|_| Error::config("embedder.embed must be a function"))?;
        let _ = Reflect::set(&copy, &"embedder".into(), &embedder);
    }
    let provider = Reflect::get(&copy, &"provider".into()).unwrap_or(JsValue::UNDEFINED);
    if provider.is_object() {
        let provider = Object::assign(&Object::new(), provider.unchecked_ref());
        callbacks.provider_call = take_function(&provider, "call")
            .map_err(|_| Error::config("provider.call must be a function"))?;
        resolve_base_url(&provider);
        let _ = Reflect::set(&copy, &"provider".into(), &provider);
    }
    let json_of = |key: &str| {
        js_sys::JSON::stringify(&Reflect::get(&copy, &key.into()).unwrap_or(JsValue::UNDEFINED))
            .ok()
            .and_then(|text| text.as_string())
    };
    let embedder_json = json_of("embedder").unwrap_or_else(|| r#"{"kind":"none"}"#.to_owned());
    let retrieval_json = json_of("retrieval").unwrap_or_else(|| "null".to_owned());
    let mut parsed: OpenOptions = from_js(copy.into(), "Lectern.open options")?;
    parsed.embedder_json = embedder_json;
    parsed.retrieval_json = retrieval_json;
    parsed.check(HostFunctions {
        provider_call: callbacks.provider_call.is_some(),
        embed: callbacks.embed.is_some(),
    })?;
    Ok((parsed, callbacks))
}

/// A `provider.baseUrl` that is a path (`'/v1'`) or otherwise relative,
/// resolved against the page's (or worker's) own URL, as `fetch` would; an
/// absolute one, or one that does not resolve, is left for the checks.
fn resolve_base_url(provider: &Object) {
    let key = JsValue::from_str("baseUrl");
    let Some(url) = Reflect::get(provider, &key).ok().and_then(|v| v.as_string()) else {
        return;
    };
    if url.starts_with("http://") || url.starts_with("https://") || url.is_empty() {
        return;
    }
    let page = Reflect::get(&js_sys::global(), &"location".into())
        .and_then(|location| Reflect::get(&location, &"href".into()))
        .ok()
        .and_then(|href| href.as_string());
    if let Some(resolved) = page.and_then(|page| web_sys::Url::new_with_base(&url, &page).ok()) {
        let _ = Reflect::set(provider, &key, &resolved.href().into());
    }
}
