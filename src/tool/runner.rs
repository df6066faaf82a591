//! Running the tool calls of one model response. Every failure — unknown or
//! refused tool, arguments that are not JSON or break the schema, an error the
//! tool reports, a timeout — becomes the call's result, for the model to read.

use std::rc::Rc;

use serde_json::{json, Value};

use super::{redact_arguments, schema, Tool, ToolCache, ToolContext, ToolRegistry, MAX_RETRIES};
use crate::approval::Decision;
use crate::domain::ToolCall;
use crate::domain::ToolCallRecord;
use crate::error::Error;
use crate::events::EventKind;
use crate::runtime::cancel::CancelToken;
use crate::runtime::time::{within, Clock};

/// How a batch of calls runs.
#[derive(Debug, Clone)]
pub struct ToolRunSettings {
    /// Names of the tools the model was offered; calls to others are refused.
    pub offered: Vec<String>,
    /// Run the calls of one response concurrently (results stay in call order).
    pub parallel: bool,
    /// Timeout of a tool that sets none.
    pub default_timeout_ms: u64,
    /// Argument fields hidden in events and records.
    pub redact: Vec<String>,
}

/// One call's outcome: what the model reads, and the record the host gets.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// The call as the model made it.
    pub call: ToolCall,
    /// The result text the model reads (`{"error": ...}` on failure).
    pub content: String,
    /// The record for `SendResult.toolCalls` and storage (arguments redacted).
    pub record: ToolCallRecord,
}

/// What the runner needs from the turn.
pub struct ToolRunContext<'a> {
    /// The registered tools.
    pub registry: &'a ToolRegistry,
    /// The result cache.
    pub cache: &'a ToolCache,
    /// Time, for durations and timeouts.
    pub clock: &'a dyn Clock,
    /// The context every tool gets (its cancel token is the turn's).
    pub tool_context: ToolContext,
    /// Receives `toolInvocation` and `toolResult` events.
    pub emit: &'a dyn Fn(EventKind),
    /// Receives each call's outcome as soon as it settles (before the batch
    /// ends), so a turn cut off mid-batch still knows what ran.
    pub settled: &'a dyn Fn(&ToolOutcome),
}

/// Runs `calls` and returns their outcomes in call order.
pub async fn run_tool_calls(
    calls: &[ToolCall],
    settings: &ToolRunSettings,
    run: &ToolRunContext<'_>,
) -> Vec<ToolOutcome> {
    if settings.parallel {
        futures::future::join_all(calls.iter().map(|call| run_one(call, settings, run))).await
    } else {
        let mut outcomes = Vec::with_capacity(calls.len());
        for call in calls {
            outcomes.push(run_one(call, settings, run).await);
        }
        outcomes
    }
}

/// The tool and parsed, valid arguments of a call, or why it cannot run
/// (unknown or not offered tool, arguments that are not JSON or break the schema).
pub fn prepare_call(
    call: &ToolCall,
    offered: &[String],
    registry: &ToolRegistry,
) -> Result<(Rc<dyn Tool>, Value), String> {
    let tool = registry
        .get(&call.name)
        .filter(|_| offered.iter().any(|n| n == &call.name))
        .ok_or_else(|| format!("Unknown tool: {}", call.name))?;
    let text = if call.arguments.trim().is_empty() {
        "{}"
    } else {
        call.arguments.as_str()
    };
    let arguments: Value = serde_json::from_str(text).map_err(|e| {
        format!("Invalid arguments: not valid JSON ({e}). Send the arguments as a JSON object.")
    })?;
    schema::validate(&tool.definition().parameters, &arguments)
        .map_err(|e| format!("Invalid arguments: {e}"))?;
    Ok((tool, arguments))
}

async fn run_one(call: &ToolCall, settings: &ToolRunSettings, run: &ToolRunContext<'_>) -> ToolOutcome {
    let started = run.clock.now_ms();
    let shown_arguments = redact_arguments(&call.arguments, &settings.redact);
    (run.emit)(EventKind::ToolInvocation {
        tool_name: call.name.clone(),
        arguments: serde_json::from_str(&shown_arguments)
            .ok()
            .filter(Value::is_object),
        arguments_text: shown_arguments.clone(),
        call_id: call.id.clone(),
    });
    let mut details = None;
    let mut attempts = 0;
    let (result, error, cached) = match prepare_call(call, &settings.offered, run.registry) {
        Err(message) => (None, Some(message), false),
        Ok((tool, arguments)) => {
            match run
                .cache
                .get(&call.name, &partition(tool.as_ref(), run), &arguments, started)
            {
                Some(hit) => (Some(hit), None, true),
                None => {
                    match execute_with_retries(tool.as_ref(), call, &arguments, settings, run, &mut attempts)
                        .await
                    {
                        Ok(value) => {
                            let (content, extra) = tool.present(value);
                            details = extra;
                            if let Some(ttl) = tool.cache_ttl_ms() {
                                let partition = partition(tool.as_ref(), run);
                                let now = run.clock.now_ms();
                                run.cache
                                    .put(&call.name, &partition, &arguments, content.clone(), now, ttl);
                            }
                            (Some(content), None, false)
                        }
                        Err(message) => (None, Some(message), false),
                    }
                }
            }
        }
    };
    let finished = run.clock.now_ms();
    let duration_ms = (finished - started).max(0.0);
    let content = match (&result, &error) {
        (Some(content), _) => content.clone(),
        (None, Some(message)) => json!({ "error": message }).to_string(),
        (None, None) => "null".to_owned(),
    };
    let record = ToolCallRecord {
        id: call.id.clone(),
        name: call.name.clone(),
        conversation_id: run.tool_context.conversation_id.clone(),
        turn_id: String::new(),
        position: 0,
        decision: Decision::Auto,
        original_arguments: shown_arguments.clone(),
        arguments: shown_arguments,
        reason: None,
        result: result.clone(),
        error: error.clone(),
        duration_ms,
        cached,
        started_at: started,
        finished_at: finished,
        attempts,
        step_cost_usd: None,
    };
    (run.emit)(EventKind::ToolResult {
        tool_name: call.name.clone(),
        call_id: call.id.clone(),
        result,
        error,
        duration_ms,
        cached,
        details,
        attempts,
    });
    let outcome = ToolOutcome {
        call: call.clone(),
        content,
        record,
    };
    (run.settled)(&outcome);
    outcome
}

/// The cache partition of a call of `tool`: its user, its conversation, or everyone's.
fn partition(tool: &dyn Tool, run: &ToolRunContext<'_>) -> String {
    let context = &run.tool_context;
    tool.cache_scope()
        .partition(context.user_id.as_deref(), &context.conversation_id)
}

/// Runs a tool, and again after an error or a timeout as many times as it
/// asks ([`Tool::retries`], at most [`MAX_RETRIES`]), waiting its retry delay
/// on the clock between runs; never after an abort (nor during the delay).
/// `attempts` counts the runs.
async fn execute_with_retries(
    tool: &dyn Tool,
    call: &ToolCall,
    arguments: &Value,
    settings: &ToolRunSettings,
    run: &ToolRunContext<'_>,
    attempts: &mut u32,
) -> Result<Value, String> {
    let retries = tool.retries().min(MAX_RETRIES);
    let cancel = &run.tool_context.cancel;
    loop {
        *attempts += 1;
        let outcome = execute(tool, &call.id, arguments.clone(), settings, run).await;
        if outcome.is_ok() || *attempts > retries || cancel.is_cancelled() {
            return outcome;
        }
        let delay = tool.retry_delay_ms();
        if delay > 0 {
            let waited = cancel
                .run(async {
                    run.clock.sleep(delay).await;
                    Ok(())
                })
                .await;
            if waited.is_err() {
                return outcome;
            }
        }
    }
}

/// Runs a tool under its timeout with its own cancel token, tripped by the
/// turn's abort or by the timeout.
async fn execute(
    tool: &dyn Tool,
    call_id: &str,
    arguments: Value,
    settings: &ToolRunSettings,
    run: &ToolRunContext<'_>,
) -> Result<Value, String> {
    let limit = tool.timeout_ms().unwrap_or(settings.default_timeout_ms);
    let cancel = CancelToken::new();
    let child = cancel.clone();
    run.tool_context.cancel.on_cancel(move || child.cancel());
    let context = ToolContext {
        cancel: cancel.clone(),
        call_id: call_id.to_owned(),
        ..run.tool_context.clone()
    };
    let running = tool.execute(arguments, context);
    let outcome = within(run.clock, Some(limit), cancel.run(async { Ok(running.await) })).await;
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(message)) => Err(message),
        Err(Error::Timeout { after_ms }) => {
            cancel.cancel();
            Err(format!("Tool timed out after {after_ms} ms"))
        }
        Err(Error::Aborted) => Err("Aborted before the tool finished".to_owned()),
        Err(other) => Err(other.to_string()),
    }
}
