//! The host functions among `approvals` (in `Lectern.open`'s options and
//! `setApprovals`): policies decided per call by `(args, ctx) => 'auto' | 'ask' | 'deny'` (or a promise of one).

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use js_sys::{Function, Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::approval::{ApprovalConfig, ApprovalOptions, ApprovalPolicy, PolicyContext, PolicyRule};
use crate::wasm::js::{describe_js, from_js, to_js};

use crate::error::{Error, Result};

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
    options.config(js_rules(rules))
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

/// The host's policy functions as the core's per-call rules.
pub fn js_rules(functions: Vec<(String, Function)>) -> Vec<(String, Rc<dyn PolicyRule>)> {
    functions
        .into_iter()
        .map(|(name, function)| (name, Rc::new(JsPolicyRule { function }) as Rc<dyn PolicyRule>))
        .collect()
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
