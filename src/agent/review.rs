//! Review of headless runs: a run that ran a tool which may have changed
//! something ends `proposed`, and a person accepts or rejects it.

use super::Agent;
use crate::domain::{ReviewDecision, RunRecord, RunReview, RunStatus, ToolCallRecord};
use crate::error::{Error, Result};

impl Agent {
    /// Whether any of these calls ran a tool that is not read-only (a tool
    /// unregistered since counts as one that may have changed something).
    pub(super) fn changed_anything(&self, calls: &[ToolCallRecord]) -> bool {
        calls
            .iter()
            .filter(|call| call.attempts > 0)
            .any(|call| self.tools.get(&call.name).is_none_or(|tool| !tool.read_only()))
    }

    /// Records a person's verdict on a `proposed` (or `failed`) run: a
    /// proposed run becomes `accepted` or `rejected`, a failed one stays
    /// failed; the log and tool calls are kept either way. `ConfigError` for a
    /// run that is not reviewable or was reviewed already.
    pub async fn review_run(
        &self,
        run_id: &str,
        decision: ReviewDecision,
        note: Option<String>,
    ) -> Result<RunRecord> {
        let mut run = self.run(run_id).await?;
        if let Some(review) = &run.review {
            return Err(Error::config(format!(
                "run {run_id} was already reviewed ({:?})",
                review.decision
            )));
        }
        run.status = match (run.status, decision) {
            (RunStatus::Proposed, ReviewDecision::Accept) => RunStatus::Accepted,
            (RunStatus::Proposed, ReviewDecision::Reject) => RunStatus::Rejected,
            (RunStatus::Failed, _) => RunStatus::Failed,
            (status, _) => {
                return Err(Error::config(format!(
                    "run {run_id} is {status:?}: only proposed and failed runs are reviewed"
                )))
            }
        };
        run.review = Some(RunReview {
            decision,
            note,
            at: self.clock.now_ms(),
        });
        self.archive().await?.put_run(&run).await?;
        Ok(run)
    }
}
