//! `Lectern.open(options)`: reading and checking what the host passed.

use js_sys::{Function, Object, Reflect};
use serde::Deserialize;
use wasm_bindgen::{JsCast, JsValue};

use super::js::from_js;
use crate::agent::AgentConfig;
use crate::error::{Error, Result};
use crate::provider::ProviderConfig;

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
        let mut config = AgentConfig::default();
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

/// Splits the host's options into the serialisable part and the `onEvent` callback.
pub fn read_options(options: &JsValue) -> Result<(OpenOptions, Option<Function>)> {
    if !options.is_object() {
        return Err(Error::config("Lectern.open needs an options object"));
    }
    let copy = Object::assign(&Object::new(), options.unchecked_ref());
    let key = JsValue::from_str("onEvent");
    let callback = Reflect::get(&copy, &key).unwrap_or(JsValue::UNDEFINED);
    let callback = if callback.is_undefined() || callback.is_null() {
        None
    } else {
        Some(
            callback
                .dyn_into::<Function>()
                .map_err(|_| Error::config("onEvent must be a function"))?,
        )
    };
    let _ = Reflect::delete_property(&copy, &key);
    let parsed: OpenOptions = from_js(copy.into(), "Lectern.open options")?;
    parsed.provider.validate()?;
    if let Some(name) = &parsed.db_name {
        if name.is_empty() {
            return Err(Error::config("dbName must not be empty"));
        }
    }
    Ok((parsed, callback))
}
