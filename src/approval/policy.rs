//! Per-tool approval policies.

use std::fmt;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde::Serialize;
use serde_json::Value;

use crate::domain::OnNewMessage;
use crate::domain::SortedMap;
use crate::json::from_json::FromJson;

/// What happens to a call of a tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, FromJson)]
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
    /// The policy of tools not listed in `tools`; `None`: `ask` for a tool
    /// not declared read-only, `auto` for a read-only one (what `approvals`
    /// without a `default` gives). [`ApprovalConfig::default`] has `auto`.
    pub default_policy: Option<ApprovalPolicy>,
    /// Policies by tool name.
    pub tools: SortedMap<String, ToolPolicy>,
    /// Treat every `ask` as approved (trusted or headless use); `deny` still refuses.
    pub auto_approve: bool,
    /// How long a paused turn waits for its decisions (default 24 hours).
    pub ttl_ms: u64,
    /// What a new message does to a turn waiting for approval (default `Refuse`).
    pub on_new_message: OnNewMessage,
}

/// The default time a paused turn waits: a day.
pub const DEFAULT_APPROVAL_TTL_MS: u64 = 24 * 60 * 60 * 1000;

impl Default for ApprovalConfig {
    fn default() -> Self {
        ApprovalConfig {
            default_policy: Some(ApprovalPolicy::Auto),
            tools: SortedMap::new(),
            auto_approve: false,
            ttl_ms: DEFAULT_APPROVAL_TTL_MS,
            on_new_message: OnNewMessage::Refuse,
        }
    }
}

impl ApprovalConfig {
    /// Whether every call of `tool` runs without a look at its arguments (its
    /// policy is a fixed `auto`, or a fixed `ask` under auto-approval).
    /// `auto_approve` is the turn's effective auto-approval (see [`ApprovalConfig::auto_approve_for`]).
    /// `read_only`: whether the tool is declared read-only.
    pub fn always_runs(&self, tool: &str, read_only: bool, auto_approve: bool) -> bool {
        self.fixed(tool, read_only)
            .is_some_and(|policy| self.lifted(policy, auto_approve) == ApprovalPolicy::Auto)
    }

    /// The policy for one call. `auto_approve` (the turn's effective
    /// auto-approval) turns `ask` into `auto`; a rule that fails yields `deny` with its reason.
    /// `read_only`: whether the tool is declared read-only.
    pub async fn policy_for(
        &self,
        arguments: &Value,
        context: &PolicyContext,
        read_only: bool,
        auto_approve: bool,
    ) -> (ApprovalPolicy, Option<String>) {
        let decided = match self.tools.get(&context.tool_name) {
            Some(ToolPolicy::Rule(rule)) => rule.decide(arguments, context).await,
            _ => Ok(self.fixed(&context.tool_name, read_only).unwrap_or_default()),
        };
        match decided {
            Ok(policy) => (self.lifted(policy, auto_approve), None),
            Err(message) => (
                ApprovalPolicy::Deny,
                Some(format!("the approval policy failed: {message}")),
            ),
        }
    }

    /// A tool's policy when it does not depend on the call: listed as fixed,
    /// or the default (by default, `auto` only for a read-only tool).
    fn fixed(&self, tool: &str, read_only: bool) -> Option<ApprovalPolicy> {
        let by_kind = if read_only {
            ApprovalPolicy::Auto
        } else {
            ApprovalPolicy::Ask
        };
        match self.tools.get(tool) {
            None => Some(self.default_policy.unwrap_or(by_kind)),
            Some(ToolPolicy::Fixed(policy)) => Some(*policy),
            Some(ToolPolicy::Rule(_)) => None,
        }
    }

    /// Whether `ask` counts as approved in a turn: a `send`'s own setting
    /// (`turn`), else the configuration's.
    pub fn auto_approve_for(&self, turn: Option<bool>) -> bool {
        turn.unwrap_or(self.auto_approve)
    }

    /// `policy` after auto-approval, which turns `ask` into `auto`.
    fn lifted(&self, policy: ApprovalPolicy, auto_approve: bool) -> ApprovalPolicy {
        match policy {
            ApprovalPolicy::Ask if auto_approve => ApprovalPolicy::Auto,
            other => other,
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
            default_policy: Some(ApprovalPolicy::Ask),
            ..Default::default()
        };
        config
            .tools
            .insert("rm".into(), ToolPolicy::Fixed(ApprovalPolicy::Deny));
        config
            .tools
            .insert("file".into(), ToolPolicy::Rule(Rc::new(WritesAsk)));
        let decide =
            |tool: &str, args: Value, auto| block_on(config.policy_for(&args, &context(tool), false, auto)).0;
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
        assert!(config.always_runs("unlisted", false, true) && !config.always_runs("unlisted", false, false));
        assert!(
            !config.always_runs("file", false, true),
            "a rule needs the arguments"
        );
        assert!(!config.always_runs("rm", false, true));
        // Auto-approval turns `ask` into `auto` but never lifts a `deny`.
        assert_eq!(decide("other", Value::Null, true), ApprovalPolicy::Auto);
        assert_eq!(decide("rm", Value::Null, true), ApprovalPolicy::Deny);
    }

    #[test]
    fn without_a_default_only_read_only_tools_run_unasked() {
        let config = ApprovalConfig {
            default_policy: None,
            ..Default::default()
        };
        assert!(config.always_runs("lookup", true, false), "read-only: auto");
        assert!(!config.always_runs("write", false, false), "not read-only: asks");
        let decide = |read_only| block_on(config.policy_for(&Value::Null, &context("t"), read_only, false)).0;
        assert_eq!(
            (decide(true), decide(false)),
            (ApprovalPolicy::Auto, ApprovalPolicy::Ask)
        );
        assert!(
            config.always_runs("write", false, true),
            "auto-approval still lifts the ask"
        );
    }
}
