//! `approvals` in `Lectern.open`'s options: policies by tool, some of them
//! host functions `(args, ctx) => 'auto' | 'ask' | 'deny'` (or a promise of one).

use std::collections::BTreeMap;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use js_sys::{Function, Object, Promise, Reflect};
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::js::{describe_js, from_js, to_js};
use crate::approval::{ApprovalConfig, ApprovalPolicy, OnNewMessage, PolicyContext, PolicyRule, ToolPolicy};

use crate::error::{Error, Result};

/// The serialisable part of `approvals`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApprovalOptions {
    /// The policy of unlisted tools (default `'auto'`).
    #[serde(default)]
    pub default: ApprovalPolicy,
    /// Fixed policies by tool name (functions are taken out before parsing).
    #[serde(default)]
    pub tools: BTreeMap<String, ApprovalPolicy>,
    /// Approve every `ask` without asking.
    #[serde(default)]
    pub auto_approve: bool,
    /// How long a paused turn waits, in ms (default a day).
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// What a new message does to a turn waiting for approval (default `'refuse'`).
    #[serde(default)]
    pub on_new_message: OnNewMessage,
}

impl ApprovalOptions {
    /// The approval configuration, with the host's policy functions.
    pub fn config(&self, rules: Vec<(String, Function)>) -> Result<ApprovalConfig> {
        let mut config = ApprovalConfig {
            default_policy: self.default,
            auto_approve: self.auto_approve,
            on_new_message: self.on_new_message,
            ..ApprovalConfig::default()
        };
        if let Some(ttl) = self.ttl_ms {
            if ttl == 0 {
                return Err(Error::config("approvals.ttlMs must be at least 1"));
            }
            config.ttl_ms = ttl;
        }
        for (name, policy) in &self.tools {
            config.tools.insert(name.clone(), ToolPolicy::Fixed(*policy));
        }
        for (name, function) in rules {
            config
                .tools
                .insert(name, ToolPolicy::Rule(Rc::new(JsPolicyRule { function })));
        }
        Ok(config)
    }
}

/// `setApprovals(policy)`'s argument, read like `approvals` in `Lectern.open`'s options.
pub fn read_approvals(policy: JsValue) -> Result<ApprovalConfig> {
    if !policy.is_object() {
        return Err(Error::config("setApprovals needs an approvals object"));
    }
    let holder = Object::new();
    let _ = Reflect::set(&holder, &"approvals".into(), &policy);
    let rules = take_policy_functions(&holder)?;
    let plain = Reflect::get(&holder, &"approvals".into()).unwrap_or(JsValue::UNDEFINED);
    let options: ApprovalOptions = from_js(plain, "approvals")?;
    options.config(rules)
}

/// Takes the functions out of `options.approvals.tools` (the options object is
/// a copy), returning them by tool name.
pub fn take_policy_functions(options: &Object) -> Result<Vec<(String, Function)>> {
    let approvals = Reflect::get(options, &"approvals".into()).unwrap_or(JsValue::UNDEFINED);
    if !approvals.is_object() {
        return Ok(Vec::new());
    }
    let approvals = Object::assign(&Object::new(), approvals.unchecked_ref());
    let tools = Reflect::get(&approvals, &"tools".into()).unwrap_or(JsValue::UNDEFINED);
    let mut rules = Vec::new();
    if tools.is_object() {
        let tools = Object::assign(&Object::new(), tools.unchecked_ref());
        for key in Object::keys(&tools).iter() {
            let value = Reflect::get(&tools, &key).unwrap_or(JsValue::UNDEFINED);
            if let Some(function) = value.dyn_ref::<Function>() {
                let name = key.as_string().unwrap_or_default();
                rules.push((name, function.clone()));
                let _ = Reflect::delete_property(&tools, &key);
            }
        }
        let _ = Reflect::set(&approvals, &"tools".into(), &tools);
    }
    let _ = Reflect::set(options, &"approvals".into(), &approvals);
    Ok(rules)
}

/// A host function deciding a tool's policy per call.
struct JsPolicyRule {
    function: Function,
}

impl PolicyRule for JsPolicyRule {
    fn decide(
        &self,
        arguments: &Value,
        context: &PolicyContext,
    ) -> LocalBoxFuture<'static, Result<ApprovalPolicy, String>> {
        let called = to_js(arguments)
            .and_then(|args| Ok((args, to_js(context)?)))
            .map_err(|e| e.to_string())
            .and_then(|(args, ctx)| {
                self.function
                    .call2(&JsValue::NULL, &args, &ctx)
                    .map_err(|e| format!("it threw: {}", describe_js(&e)))
            });
        Box::pin(async move {
            let returned = called?;
            let value = JsFuture::from(Promise::resolve(&returned))
                .await
                .map_err(|e| format!("it rejected: {}", describe_js(&e)))?;
            match value.as_string().as_deref() {
                Some("auto") => Ok(ApprovalPolicy::Auto),
                Some("ask") => Ok(ApprovalPolicy::Ask),
                Some("deny") => Ok(ApprovalPolicy::Deny),
                _ => Err(format!(
                    "it returned {}, not 'auto', 'ask' or 'deny'",
                    describe_js(&value)
                )),
            }
        })
    }
}
