//! Spend limits: `budget` for one turn and `budgetPeriod` for a
//! conversation's lifetime, checked before each model call from the usage so
//! far plus the next request's estimated input. Past a limit the turn stops
//! with `BudgetExceeded`; every step before it is already stored whole.

use super::Agent;
use crate::domain::{Budget, Usage, UsageTotals};
use crate::error::{Error, Result};

/// Usage in one scope: tokens, and cost where the price is known.
#[derive(Debug, Clone, Copy)]
pub(super) struct Spent {
    /// Input and output tokens.
    pub tokens: u64,
    /// Their cost, if the model has a price.
    pub cost_usd: Option<f64>,
}

/// Where a conversation stood when this run of the turn's loop began: its
/// stored totals (which then include this turn's earlier calls) and the
/// turn's own usage at that moment, so no call is counted twice.
pub(super) struct PeriodStart {
    /// The conversation's stored totals.
    pub totals: UsageTotals,
    /// The turn's own usage then.
    pub turn_usage: Usage,
}

/// Compares one scope's spending plus the next request with its budget.
pub(super) fn check(scope: &str, budget: &Budget, spent: Spent, next: Spent) -> Result<()> {
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
    /// The model a turn asks: its own (`send`'s `model`), or else this agent's.
    pub(super) fn model_asked<'a>(&'a self, model: Option<&'a str>) -> &'a str {
        model.unwrap_or_else(|| self.model.model_name())
    }

    /// The cost of `usage` on the model a turn asks ([`Agent::model_asked`]),
    /// where it has a price.
    pub(super) fn cost_usd(&self, model: Option<&str>, usage: &Usage) -> Option<f64> {
        self.config.prices.cost_usd(self.model_asked(model), usage)
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
