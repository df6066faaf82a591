//! Tools registered from JS: `registerTool({ name, description, parameters, execute, timeoutMs?, cacheTtlMs?,
//! cacheScope?, retries?, retryDelayMs? })`.

use futures::future::LocalBoxFuture;
use js_sys::{Function, Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortController;

use crate::domain::ToolDefinition;
use crate::error::{Error, Result};
use crate::json::from_json::FromJson;
use crate::tool::{CacheScope, Tool, ToolContext, ToolResult, MAX_RETRIES};
use crate::wasm::js::{describe_js, from_js, take_key, to_js};

/// The serialisable part of a tool spec.
#[derive(Debug, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ToolSpec {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default = "empty_object_schema")]
    parameters: Value,
    #[serde(default)]
    timeout_ms: Option<u64>,
    #[serde(default)]
    cache_ttl_ms: Option<u64>,
    #[serde(default)]
    cache_scope: CacheScope,
    #[serde(default)]
    retries: u32,
    #[serde(default)]
    retry_delay_ms: u64,
    #[serde(default)]
    read_only: bool,
}

fn empty_object_schema() -> Value {
    serde_json::json!({ "type": "object", "properties": {} })
}

/// A tool whose `execute` is a host JS function `(args, ctx) => result | Promise<result>`.
pub struct JsTool {
    definition: ToolDefinition,
    execute: Function,
    timeout_ms: Option<u64>,
    cache_ttl_ms: Option<u64>,
    cache_scope: CacheScope,
    retries: u32,
    retry_delay_ms: u64,
    read_only: bool,
}

impl JsTool {
    /// Reads a tool spec object.
    pub fn from_spec(spec: &JsValue) -> Result<JsTool> {
        if !spec.is_object() {
            return Err(Error::config("registerTool needs a tool object"));
        }
        let copy = Object::assign(&Object::new(), spec.unchecked_ref());
        let execute = take_key(&copy, "execute")
            .dyn_into::<Function>()
            .map_err(|_| Error::config("a tool needs execute, a (possibly async) function"))?;
        let spec: ToolSpec = from_js(copy.into(), "tool")?;
        if spec.timeout_ms == Some(0) {
            return Err(Error::config(format!(
                "tool {}: timeoutMs must be at least 1",
                spec.name
            )));
        }
        if spec.retries > MAX_RETRIES {
            return Err(Error::config(format!(
                "tool {}: retries must be at most {MAX_RETRIES}",
                spec.name
            )));
        }
        Ok(JsTool {
            definition: ToolDefinition {
                name: spec.name,
                description: spec.description,
                parameters: spec.parameters,
            },
            execute,
            timeout_ms: spec.timeout_ms,
            cache_ttl_ms: spec.cache_ttl_ms,
            cache_scope: spec.cache_scope,
            retries: spec.retries,
            retry_delay_ms: spec.retry_delay_ms,
            read_only: spec.read_only,
        })
    }
}

/// The `ctx` a JS tool gets: `{ conversationId, userId, signal, setWorkingState(obj) }`.
fn js_context(context: &ToolContext) -> std::result::Result<JsValue, JsValue> {
    let ctx = Object::new();
    Reflect::set(
        &ctx,
        &"conversationId".into(),
        &context.conversation_id.as_str().into(),
    )?;
    let user = context
        .user_id
        .as_deref()
        .map_or(JsValue::NULL, JsValue::from_str);
    Reflect::set(&ctx, &"userId".into(), &user)?;
    let controller = AbortController::new()?;
    Reflect::set(&ctx, &"signal".into(), &controller.signal())?;
    context.cancel.on_cancel(move || controller.abort());
    let slot = context.working_state.clone();
    let set_working_state =
        Closure::<dyn Fn(JsValue) -> std::result::Result<(), JsValue>>::new(move |state: JsValue| {
            let value: Value =
                from_js(state, "working state").map_err(|e| crate::wasm::js::error_to_js(&e))?;
            if !(value.is_object() || value.is_null()) {
                return Err(crate::wasm::js::error_to_js(&Error::config(
                    "the working state must be an object or null",
                )));
            }
            *slot.borrow_mut() = Some(value);
            Ok(())
        });
    Reflect::set(
        &ctx,
        &"setWorkingState".into(),
        &set_working_state.into_js_value(),
    )?;
    Object::freeze(&ctx);
    Ok(ctx.into())
}

impl Tool for JsTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn execute(&self, arguments: Value, context: ToolContext) -> LocalBoxFuture<'static, ToolResult> {
        let execute = self.execute.clone();
        Box::pin(async move {
            let args = to_js(&arguments).map_err(|e| e.to_string())?;
            let ctx = js_context(&context).map_err(|e| describe_js(&e))?;
            let returned = execute
                .call2(&JsValue::NULL, &args, &ctx)
                .map_err(|e| describe_js(&e))?;
            let value = JsFuture::from(Promise::resolve(&returned))
                .await
                .map_err(|e| describe_js(&e))?;
            if value.is_undefined() {
                return Ok(Value::Null);
            }
            from_js(value, "tool result")
                .map_err(|e| format!("the tool returned a value that is not JSON: {e}"))
        })
    }

    fn timeout_ms(&self) -> Option<u64> {
        self.timeout_ms
    }

    fn cache_ttl_ms(&self) -> Option<u64> {
        self.cache_ttl_ms
    }

    fn cache_scope(&self) -> CacheScope {
        self.cache_scope
    }

    fn retries(&self) -> u32 {
        self.retries
    }

    fn retry_delay_ms(&self) -> u64 {
        self.retry_delay_ms
    }

    fn read_only(&self) -> bool {
        self.read_only
    }
}
