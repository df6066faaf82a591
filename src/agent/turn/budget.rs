//! A turn's budgets (see `agent::budget`): `budget` for the turn and
//! `budgetPeriod` for its conversation, checked before each model call.

use super::Turn;
use crate::agent::budget::{check, PeriodStart, Spent};
use crate::agent::usage_estimate::request_tokens;
use crate::domain::{Budget, Usage};
use crate::error::Result;
use crate::provider::ModelRequest;

impl Turn<'_> {
    /// The turn's budget: `send`'s, else the configured one.
    fn budget(&self) -> Budget {
        self.state.overrides.budget.unwrap_or(self.agent.config.budget)
    }

    /// Reads the conversation's totals when a `budgetPeriod` is set.
    pub(super) async fn period_start(&self) -> Result<Option<PeriodStart>> {
        if !self.agent.config.budget_period.is_set() {
            return Ok(None);
        }
        let conversation_id = &self.scope.conversation_id;
        Ok(Some(PeriodStart {
            totals: self.agent.store.usage_totals(conversation_id).await?,
            turn_usage: self.state.usage,
        }))
    }

    /// Whether a cost limit applies but the model has no price (the check is skipped).
    pub(super) fn cost_unchecked(&self) -> bool {
        let config = &self.agent.config;
        let cost_limited =
            self.budget().max_cost_usd.is_some() || config.budget_period.max_cost_usd.is_some();
        let model = self.agent.model_asked(self.state.overrides.model.as_deref());
        cost_limited && config.prices.price(model).is_none()
    }

    /// `BudgetExceeded` if `request` would take the turn or the conversation
    /// past its budget (the conversation's counted from `period`).
    pub(super) fn check_budgets(&self, request: &ModelRequest, period: Option<&PeriodStart>) -> Result<()> {
        let next = self.next_request(request);
        let turn = self.spent(&self.state.usage);
        check("turn", &self.budget(), turn, next)?;
        let Some(start) = period else { return Ok(()) };
        let earlier = self.spent(&start.turn_usage);
        let conversation = Spent {
            tokens: start.totals.tokens() + turn.tokens - earlier.tokens,
            cost_usd: start
                .totals
                .cost_usd
                .or(Some(0.0))
                .zip(turn.cost_usd.zip(earlier.cost_usd))
                .map(|(total, (now, before))| total + now - before),
        };
        check(
            "conversation",
            &self.agent.config.budget_period,
            conversation,
            next,
        )
    }

    /// What `usage` spent: its tokens, and its cost where priced.
    fn spent(&self, usage: &Usage) -> Spent {
        Spent {
            tokens: usage.input_tokens + usage.output_tokens,
            cost_usd: self.cost_usd(usage),
        }
    }

    /// What `request` would spend: its input, estimated.
    fn next_request(&self, request: &ModelRequest) -> Spent {
        let usage = Usage {
            // In the model's own count, as far as calls taught it (see `calibration`).
            input_tokens: self.agent.calibration.scale(request_tokens(request)) as u64,
            ..Usage::default()
        };
        Spent {
            tokens: usage.input_tokens,
            cost_usd: self.cost_usd(&usage),
        }
    }
}
