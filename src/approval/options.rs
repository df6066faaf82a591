//! `approvals` as the host gives it (in `Lectern.open`'s options and to
//! `setApprovals`): the default policy, fixed policies by tool, and the
//! host's per-call rules, which the caller hands over already wrapped.

use std::rc::Rc;

use super::policy::{ApprovalConfig, ApprovalPolicy, PolicyRule, ToolPolicy};
use crate::domain::OnNewMessage;
use crate::domain::SortedMap;
use crate::error::{Error, Result};
use crate::json::from_json::FromJson;

/// The serialisable part of `approvals` (rule functions are taken out first).
#[derive(Debug, Default, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApprovalOptions {
    /// The policy of unlisted tools (default: `'ask'` for a tool not
    /// declared `readOnly`, `'auto'` for a read-only one).
    #[serde(default)]
    pub default: Option<ApprovalPolicy>,
    /// Fixed policies by tool name (functions are taken out before parsing).
    #[serde(default)]
    pub tools: SortedMap<String, ApprovalPolicy>,
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
    /// The approval configuration, with the host's per-call `rules` by tool name.
    pub fn config(&self, rules: Vec<(String, Rc<dyn PolicyRule>)>) -> Result<ApprovalConfig> {
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
        for (name, rule) in rules {
            config.tools.insert(name, ToolPolicy::Rule(rule));
        }
        Ok(config)
    }
}
