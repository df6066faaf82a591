//! Per-tool approval policies.

use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What happens to a call of a tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ApprovalPolicy {
    /// Run it.
    #[default]
    Auto,
    /// Pause the turn until a person approves, rejects or edits it.
    Ask,
    /// Do not run it; the model is told it was refused.
    Deny,
}

/// What a policy function learns about the call besides its arguments.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyContext {
    /// The tool called.
    pub tool_name: String,
    /// The conversation the turn runs in.
    pub conversation_id: String,
    /// The tenant of the turn, if any.
    pub user_id: Option<String>,
}

/// A policy decided per call, from its (validated) arguments.
pub trait PolicyRule {
    /// The policy for this call; an error refuses the call (it is treated as `deny`).
    fn decide(
        &self,
        arguments: &Value,
        context: &PolicyContext,
    ) -> LocalBoxFuture<'static, Result<ApprovalPolicy, String>>;
}

/// One tool's policy: fixed, or decided per call.
#[derive(Clone)]
pub enum ToolPolicy {
    /// The same for every call.
    Fixed(ApprovalPolicy),
    /// Decided from each call's arguments.
    Rule(Rc<dyn PolicyRule>),
}

impl fmt::Debug for ToolPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolPolicy::Fixed(policy) => write!(f, "Fixed({policy:?})"),
            ToolPolicy::Rule(_) => f.write_str("Rule(..)"),
        }
    }
}

/// How tool calls are approved.
#[derive(Debug, Clone)]
pub struct ApprovalConfig {
    /// The policy of tools not listed in `tools` (default `auto`).
    pub default_policy: ApprovalPolicy,
    /// Policies by tool name.
    pub tools: BTreeMap<String, ToolPolicy>,
    /// Treat every `ask` as approved (trusted or headless use); `deny` still refuses.
    pub auto_approve: bool,
    /// How long a paused turn waits for its decisions (default 24 hours).
    pub ttl_ms: u64,
}

/// The default time a paused turn waits: a day.
pub const DEFAULT_APPROVAL_TTL_MS: u64 = 24 * 60 * 60 * 1000;

impl Default for ApprovalConfig {
    fn default() -> Self {
        ApprovalConfig {
            default_policy: ApprovalPolicy::Auto,
            tools: BTreeMap::new(),
            auto_approve: false,
            ttl_ms: DEFAULT_APPROVAL_TTL_MS,
        }
    }
}

impl ApprovalConfig {
    /// The policy for one call. `auto_approve` (the config's or the turn's)
    /// turns `ask` into `auto`; a rule that fails yields `deny` with its reason.
    pub async fn policy_for(
        &self,
        arguments: &Value,
        context: &PolicyContext,
        auto_approve: bool,
    ) -> (ApprovalPolicy, Option<String>) {
        let (policy, reason) = match self.tools.get(&context.tool_name) {
            None => (self.default_policy, None),
            Some(ToolPolicy::Fixed(policy)) => (*policy, None),
            Some(ToolPolicy::Rule(rule)) => match rule.decide(arguments, context).await {
                Ok(policy) => (policy, None),
                Err(message) => (
                    ApprovalPolicy::Deny,
                    Some(format!("the approval policy failed: {message}")),
                ),
            },
        };
        match policy {
            ApprovalPolicy::Ask if auto_approve || self.auto_approve => (ApprovalPolicy::Auto, None),
            other => (other, reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    struct WritesAsk;
    impl PolicyRule for WritesAsk {
        fn decide(
            &self,
            arguments: &Value,
            _: &PolicyContext,
        ) -> LocalBoxFuture<'static, Result<ApprovalPolicy, String>> {
            let write = arguments["mode"] == "write";
            Box::pin(async move {
                Ok(if write {
                    ApprovalPolicy::Ask
                } else {
                    ApprovalPolicy::Auto
                })
            })
        }
    }

    fn context(tool: &str) -> PolicyContext {
        PolicyContext {
            tool_name: tool.into(),
            conversation_id: "c".into(),
            user_id: None,
        }
    }

    #[test]
    fn listed_fixed_rule_and_default_policies() {
        let mut config = ApprovalConfig {
            default_policy: ApprovalPolicy::Ask,
            ..Default::default()
        };
        config
            .tools
            .insert("rm".into(), ToolPolicy::Fixed(ApprovalPolicy::Deny));
        config
            .tools
            .insert("file".into(), ToolPolicy::Rule(Rc::new(WritesAsk)));
        let decide =
            |tool: &str, args: Value, auto| block_on(config.policy_for(&args, &context(tool), auto)).0;
        assert_eq!(decide("rm", Value::Null, false), ApprovalPolicy::Deny);
        assert_eq!(decide("other", Value::Null, false), ApprovalPolicy::Ask);
        assert_eq!(
            decide("file", serde_json::json!({"mode": "read"}), false),
            ApprovalPolicy::Auto
        );
        assert_eq!(
            decide("file", serde_json::json!({"mode": "write"}), false),
            ApprovalPolicy::Ask
        );
        // Auto-approval turns `ask` into `auto` but never lifts a `deny`.
        assert_eq!(decide("other", Value::Null, true), ApprovalPolicy::Auto);
        assert_eq!(decide("rm", Value::Null, true), ApprovalPolicy::Deny);
    }
}
