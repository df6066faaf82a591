//! `send(id, text, { signal?, userId?, mentions?, model?, maxOutputTokens?, maxContextTokens?, budget?, approvals?, responseSchema? })`,
//! and failed turns as JS errors.

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::agent::{SendOptions, TurnError};
use crate::domain::{ApprovalOverrides, Budget, Mention, OnNewMessage, ResponseFormat};
use crate::error::{Error, Result};
use crate::json::from_json::FromJson;
use crate::runtime::cancel::CancelToken;
use crate::wasm::abort_signal::link_signal;
use crate::wasm::js::{error_to_js, from_js, take_key, to_js};

#[derive(FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PlainSendOptions {
    #[serde(default)]
    user_id: Option<String>,
    #[serde(default)]
    mentions: Vec<Mention>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    max_output_tokens: Option<u32>,
    #[serde(default)]
    max_context_tokens: Option<u32>,
    #[serde(default)]
    budget: Option<Budget>,
    #[serde(default)]
    approvals: Option<SendApprovals>,
    #[serde(default)]
    response_schema: Option<ResponseFormat>,
}

/// `send`'s `approvals`: this turn's own approval settings.
#[derive(FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SendApprovals {
    #[serde(default)]
    auto_approve: Option<bool>,
    #[serde(default)]
    on_new_message: Option<OnNewMessage>,
}

/// Reads `send`'s options.
pub fn read_send_options(input: Option<JsValue>) -> Result<SendOptions> {
    let (rest, cancel) = split_signal(&input.unwrap_or(JsValue::UNDEFINED), "send options")?;
    let mut options = SendOptions {
        cancel,
        ..SendOptions::default()
    };
    if rest.is_undefined() {
        return Ok(options);
    }
    let plain: PlainSendOptions = from_js(rest, "send options")?;
    options.user_id = plain.user_id;
    options.mentions = plain.mentions;
    if plain.model.as_deref().is_some_and(|m| m.trim().is_empty()) {
        return Err(Error::config("send options: model must not be empty"));
    }
    options.overrides.model = plain.model;
    if plain.max_output_tokens == Some(0) {
        return Err(Error::config("send options: maxOutputTokens must be at least 1"));
    }
    options.overrides.max_output_tokens = plain.max_output_tokens;
    if plain.max_context_tokens == Some(0) {
        return Err(Error::config("send options: maxContextTokens must be at least 1"));
    }
    options.overrides.max_context_tokens = plain.max_context_tokens;
    if let Some(budget) = &plain.budget {
        budget.check_values("send options: budget")?;
    }
    options.overrides.budget = plain.budget;
    if let Some(approvals) = plain.approvals {
        options.overrides.approvals = ApprovalOverrides {
            auto_approve: approvals.auto_approve,
            on_new_message: approvals.on_new_message,
        };
    }
    if let Some(format) = plain.response_schema {
        options.overrides.response_format = Some(format.checked()?);
    }
    Ok(options)
}

/// Takes `signal` out of a copy of `input` and links it to a new cancel token.
pub fn split_signal(input: &JsValue, what: &str) -> Result<(JsValue, CancelToken)> {
    let cancel = CancelToken::new();
    if input.is_undefined() || input.is_null() {
        return Ok((JsValue::UNDEFINED, cancel));
    }
    if !input.is_object() {
        return Err(Error::config(format!("{what} must be an object")));
    }
    let copy = Object::assign(&Object::new(), input.unchecked_ref());
    let signal = take_key(&copy, "signal");
    link_signal(&signal, &cancel)?;
    Ok((copy.into(), cancel))
}

/// The options of a call that takes only `{ signal? }` (`resolveApprovals`,
/// `resumeTurn`): any other key is a `ConfigError` naming `what`.
pub fn signal_only(options: Option<JsValue>, what: &str) -> Result<SendOptions> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let (rest, cancel) = split_signal(&options, &format!("{what} options"))?;
    if rest.is_object() && Object::keys(rest.unchecked_ref::<Object>()).length() > 0 {
        return Err(Error::config(format!("{what} options take only signal")));
    }
    Ok(SendOptions {
        cancel,
        ..SendOptions::default()
    })
}

/// The JS `Error` a failed turn rejects with: its kind's error, plus `steps`,
/// `toolCalls` (completed before the failure), `usage` (tokens used before
/// it), `egress` (what its model requests sent) and `partialText` (answer
/// text streamed before it, if any).
pub fn turn_error_to_js(failure: &TurnError) -> JsValue {
    let error = error_to_js(&failure.error);
    if let Some(text) = &failure.partial_text {
        let _ = Reflect::set(&error, &"partialText".into(), &JsValue::from_str(text));
    }
    let _ = Reflect::set(&error, &"steps".into(), &JsValue::from(failure.steps));
    if let Ok(calls) = to_js(&failure.tool_calls) {
        super::tool_call_shape::shape_records(&calls);
        let _ = Reflect::set(&error, &"toolCalls".into(), &calls);
    }
    if let Ok(usage) = to_js(&failure.usage) {
        let _ = Reflect::set(&error, &"usage".into(), &usage);
    }
    if let Ok(egress) = to_js(&failure.egress) {
        let _ = Reflect::set(&error, &"egress".into(), &egress);
    }
    error
}
