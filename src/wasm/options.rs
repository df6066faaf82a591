//! `Lectern.open(options)`: reading and checking what the host passed.

use js_sys::{Function, Object, Reflect};
use serde::Deserialize;
use wasm_bindgen::{JsCast, JsValue};

use super::js::from_js;
use crate::agent::AgentConfig;
use crate::error::{Error, Result};
use crate::provider::{PriceTable, ProviderConfig, ProviderKind};

/// The serialisable part of the options (everything but `onEvent`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenOptions {
    /// IndexedDB database name; without it, conversations live in memory only.
    #[serde(default)]
    pub db_name: Option<String>,
    /// The model provider.
    pub provider: ProviderConfig,
    /// Replaces the built-in system prompt.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// The most history messages sent to the model (default 50).
    #[serde(default)]
    pub max_history_messages: Option<usize>,
    /// The most model calls per turn (default 10).
    #[serde(default)]
    pub max_iterations: Option<u32>,
}

impl OpenOptions {
    /// The agent settings these options ask for.
    pub fn agent_config(&self) -> Result<AgentConfig> {
        let mut config = AgentConfig {
            prices: PriceTable::new(self.provider.prices.clone()),
            ..AgentConfig::default()
        };
        if let Some(prompt) = &self.system_prompt {
            config.system_prompt = prompt.clone();
        }
        if let Some(n) = self.max_history_messages {
            if n == 0 {
                return Err(Error::config("maxHistoryMessages must be at least 1"));
            }
            config.max_history_messages = n;
        }
        if let Some(n) = self.max_iterations {
            if n == 0 {
                return Err(Error::config("maxIterations must be at least 1"));
            }
            config.max_iterations = n;
        }
        Ok(config)
    }
}

/// The host functions among the options.
#[derive(Default)]
pub struct Callbacks {
    /// `onEvent`.
    pub on_event: Option<Function>,
    /// `provider.call`, for a custom provider.
    pub provider_call: Option<Function>,
}

/// Takes the function at `key` out of `object` (a copy), if there is one.
fn take_function(object: &Object, key: &str, name: &str) -> Result<Option<Function>> {
    let key = JsValue::from_str(key);
    let value = Reflect::get(object, &key).unwrap_or(JsValue::UNDEFINED);
    let _ = Reflect::delete_property(object, &key);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<Function>()
        .map(Some)
        .map_err(|_| Error::config(format!("{name} must be a function")))
}

/// Splits the host's options into the serialisable part and the callbacks.
pub fn read_options(options: &JsValue) -> Result<(OpenOptions, Callbacks)> {
    if !options.is_object() {
        return Err(Error::config("Lectern.open needs an options object"));
    }
    let copy = Object::assign(&Object::new(), options.unchecked_ref());
    let mut callbacks = Callbacks {
        on_event: take_function(&copy, "onEvent", "onEvent")?,
        provider_call: None,
    };
    let provider = Reflect::get(&copy, &"provider".into()).unwrap_or(JsValue::UNDEFINED);
    if provider.is_object() {
        let provider = Object::assign(&Object::new(), provider.unchecked_ref());
        callbacks.provider_call = take_function(&provider, "call", "provider.call")?;
        let _ = Reflect::set(&copy, &"provider".into(), &provider);
    }
    let parsed: OpenOptions = from_js(copy.into(), "Lectern.open options")?;
    parsed.provider.validate()?;
    if let Some(name) = &parsed.db_name {
        if name.is_empty() {
            return Err(Error::config("dbName must not be empty"));
        }
    }
    let is_custom = matches!(parsed.provider.kind, ProviderKind::Custom(_));
    match (is_custom, callbacks.provider_call.is_some()) {
        (true, false) => {
            return Err(Error::config(
                "a custom provider needs provider.call, an async function",
            ))
        }
        (false, true) => return Err(Error::config("provider.call is only for kind: 'custom'")),
        _ => {}
    }
    Ok((parsed, callbacks))
}
