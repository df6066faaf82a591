//! Spend limits: `budget` for one turn and `budgetPeriod` for a
//! conversation's lifetime, checked before each model call from the usage so
//! far plus the next request's estimated input. Past a limit the turn stops
//! with `BudgetExceeded`; every step before it is already stored whole.

use super::usage_estimate::request_tokens;
use super::Agent;
use crate::domain::{Budget, TurnState, Usage, UsageTotals};
use crate::error::{Error, Result};
use crate::provider::ModelRequest;

/// Usage in one scope: tokens, and cost where the price is known.
#[derive(Debug, Clone, Copy)]
struct Spent {
    tokens: u64,
    cost_usd: Option<f64>,
}

/// Where a conversation stood when this run of the turn's loop began: its
/// stored totals (which then include this turn's earlier calls) and the
/// turn's own usage at that moment, so no call is counted twice.
pub(super) struct PeriodStart {
    totals: UsageTotals,
    turn_usage: Usage,
}

/// Compares one scope's spending plus the next request with its budget.
fn check(scope: &str, budget: &Budget, spent: Spent, next: Spent) -> Result<()> {
    let exceeded = |limit: &str, max: f64, spent: f64, next: f64| Error::BudgetExceeded {
        scope: scope.to_owned(),
        limit: limit.to_owned(),
        max,
        spent,
        next,
    };
    if let Some(max) = budget.max_tokens {
        if spent.tokens + next.tokens > max {
            return Err(exceeded(
                "tokens",
                max as f64,
                spent.tokens as f64,
                next.tokens as f64,
            ));
        }
    }
    if let (Some(max), Some(cost), Some(next_cost)) = (budget.max_cost_usd, spent.cost_usd, next.cost_usd) {
        if cost + next_cost > max {
            return Err(exceeded("costUsd", max, cost, next_cost));
        }
    }
    Ok(())
}

impl Agent {
    /// The turn's budget: `send`'s, else the configured one.
    fn turn_budget(&self, state: &TurnState) -> Budget {
        state.overrides.budget.unwrap_or(self.config.budget)
    }

    /// Reads the conversation's totals when a `budgetPeriod` is set.
    pub(super) async fn period_start(
        &self,
        conversation_id: &str,
        state: &TurnState,
    ) -> Result<Option<PeriodStart>> {
        if !self.config.budget_period.is_set() {
            return Ok(None);
        }
        Ok(Some(PeriodStart {
            totals: self.store.usage_totals(conversation_id).await?,
            turn_usage: state.usage,
        }))
    }

    /// Whether a cost limit applies but the model has no price (the check is skipped).
    pub(super) fn cost_unchecked(&self, state: &TurnState) -> bool {
        let cost_limited = self.turn_budget(state).max_cost_usd.is_some()
            || self.config.budget_period.max_cost_usd.is_some();
        cost_limited && self.config.prices.price(self.model.model_name()).is_none()
    }

    /// `BudgetExceeded` if `request` would take the turn or the conversation past its budget.
    pub(super) fn check_budgets(
        &self,
        state: &TurnState,
        request: &ModelRequest,
        period: Option<&PeriodStart>,
    ) -> Result<()> {
        let cost = |usage: &Usage| self.cost_usd(usage);
        let next_usage = Usage {
            // In the model's own count, as far as calls taught it (see `calibration`).
            input_tokens: self.calibration.scale(request_tokens(request)) as u64,
            ..Usage::default()
        };
        let next = Spent {
            tokens: next_usage.input_tokens,
            cost_usd: cost(&next_usage),
        };
        let turn = Spent {
            tokens: state.usage.input_tokens + state.usage.output_tokens,
            cost_usd: cost(&state.usage),
        };
        check("turn", &self.turn_budget(state), turn, next)?;
        let Some(start) = period else { return Ok(()) };
        let earlier = Spent {
            tokens: start.turn_usage.input_tokens + start.turn_usage.output_tokens,
            cost_usd: cost(&start.turn_usage),
        };
        let conversation = Spent {
            tokens: start.totals.tokens() + turn.tokens - earlier.tokens,
            cost_usd: start
                .totals
                .cost_usd
                .or(Some(0.0))
                .zip(turn.cost_usd.zip(earlier.cost_usd))
                .map(|(total, (now, before))| total + now - before),
        };
        check("conversation", &self.config.budget_period, conversation, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spent(tokens: u64, cost_usd: Option<f64>) -> Spent {
        Spent { tokens, cost_usd }
    }

    #[test]
    fn a_limit_is_crossed_by_the_next_request_not_at_it() {
        let budget = Budget {
            max_tokens: Some(100),
            max_cost_usd: None,
        };
        assert!(check("turn", &budget, spent(60, None), spent(40, None)).is_ok());
        let error = check("turn", &budget, spent(60, None), spent(41, None)).unwrap_err();
        assert_eq!(error.name(), "BudgetExceededError");
        assert_eq!(
            error.to_string(),
            "the turn's budget of 100 tokens would be exceeded: 60 spent, the next request needs about 41 more"
        );
    }

    #[test]
    fn cost_is_checked_only_where_priced() {
        let budget = Budget {
            max_tokens: None,
            max_cost_usd: Some(0.01),
        };
        assert!(check("conversation", &budget, spent(0, None), spent(10, None)).is_ok());
        let error = check(
            "conversation",
            &budget,
            spent(0, Some(0.009)),
            spent(10, Some(0.002)),
        )
        .unwrap_err();
        assert!(matches!(error, Error::BudgetExceeded { ref limit, .. } if limit == "costUsd"));
    }

    #[test]
    fn limits_must_be_positive() {
        let zero = Budget {
            max_tokens: Some(0),
            max_cost_usd: None,
        };
        assert_eq!(zero.check_values("budget").unwrap_err().name(), "ConfigError");
        let nan = Budget {
            max_tokens: None,
            max_cost_usd: Some(f64::NAN),
        };
        assert!(nan.check_values("budgetPeriod").is_err());
        assert!(Budget::default().check_values("budget").is_ok());
    }
}
