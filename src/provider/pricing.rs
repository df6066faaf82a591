//! Token prices and the cost of a call.

use crate::domain::SortedMap;
use crate::domain::Usage;
use crate::json::from_json::FromJson;

/// A model's price in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Price {
    /// Prompt tokens.
    pub input_per_m_tok: f64,
    /// Completion tokens.
    pub output_per_m_tok: f64,
    /// Prompt tokens served from cache; the input price when absent.
    #[serde(default)]
    pub cached_input_per_m_tok: Option<f64>,
}

const fn price(input: f64, output: f64, cached: f64) -> Price {
    Price {
        input_per_m_tok: input,
        output_per_m_tok: output,
        cached_input_per_m_tok: Some(cached),
    }
}

/// Published list prices of common models (USD per million tokens), matched by
/// the longest prefix so dated snapshots (`gpt-4o-2024-08-06`) find their family.
const BUILT_IN: &[(&str, Price)] = &[
    ("gpt-5", price(1.25, 10.0, 0.125)),
    ("gpt-5-mini", price(0.25, 2.0, 0.025)),
    ("gpt-5-nano", price(0.05, 0.40, 0.005)),
    ("gpt-4.1", price(2.0, 8.0, 0.50)),
    ("gpt-4.1-mini", price(0.40, 1.60, 0.10)),
    ("gpt-4.1-nano", price(0.10, 0.40, 0.025)),
    ("gpt-4o", price(2.50, 10.0, 1.25)),
    ("gpt-4o-mini", price(0.15, 0.60, 0.075)),
    ("o3", price(2.0, 8.0, 0.50)),
    ("o4-mini", price(1.10, 4.40, 0.275)),
    ("claude-opus-4-5", price(5.0, 25.0, 0.50)),
    ("claude-opus-4-1", price(15.0, 75.0, 1.50)),
    ("claude-opus-4", price(15.0, 75.0, 1.50)),
    ("claude-sonnet-4", price(3.0, 15.0, 0.30)),
    ("claude-3-7-sonnet", price(3.0, 15.0, 0.30)),
    ("claude-haiku-4-5", price(1.0, 5.0, 0.10)),
    ("claude-3-5-haiku", price(0.80, 4.0, 0.08)),
];

/// Looks up prices: the host's overrides first (exact name), then the built-in table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable {
    overrides: SortedMap<String, Price>,
}

impl PriceTable {
    /// The built-in table with these overrides.
    pub fn new(overrides: SortedMap<String, Price>) -> Self {
        PriceTable { overrides }
    }

    /// The price of `model`, if known.
    pub fn price(&self, model: &str) -> Option<Price> {
        if let Some(price) = self.overrides.get(model) {
            return Some(*price);
        }
        BUILT_IN
            .iter()
            .filter(|(name, _)| {
                model == *name
                    || model
                        .strip_prefix(name)
                        .is_some_and(|rest| rest.starts_with('-') || rest.starts_with('@'))
            })
            .max_by_key(|(name, _)| name.len())
            .map(|(_, price)| *price)
    }

    /// The cost of `usage` on `model` in US dollars, if its price is known.
    pub fn cost_usd(&self, model: &str, usage: &Usage) -> Option<f64> {
        let price = self.price(model)?;
        let cached = usage.cached_input_tokens.min(usage.input_tokens) as f64;
        let uncached = usage.input_tokens as f64 - cached;
        let cached_price = price.cached_input_per_m_tok.unwrap_or(price.input_per_m_tok);
        Some(
            (uncached * price.input_per_m_tok
                + cached * cached_price
                + usage.output_tokens as f64 * price.output_per_m_tok)
                / 1_000_000.0,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, cached: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cached_input_tokens: cached,
            estimated: false,
        }
    }

    #[test]
    fn longest_prefix_wins_and_snapshots_match_their_family() {
        let table = PriceTable::default();
        assert_eq!(
            table.price("gpt-4o-mini-2024-07-18").unwrap().input_per_m_tok,
            0.15
        );
        assert_eq!(table.price("gpt-4o-2024-08-06").unwrap().input_per_m_tok, 2.50);
        assert_eq!(
            table
                .price("claude-sonnet-4-5-20250929")
                .unwrap()
                .output_per_m_tok,
            15.0
        );
        assert!(table.price("gpt-4oops").is_none());
        assert!(table.price("llama3.2").is_none());
    }

    #[test]
    fn cost_counts_cached_tokens_at_their_price() {
        let table = PriceTable::default();
        let cost = table
            .cost_usd("gpt-4o-mini", &usage(1_000_000, 1_000_000, 500_000))
            .unwrap();
        assert!((cost - (0.5 * 0.15 + 0.5 * 0.075 + 0.60)).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn overrides_take_precedence() {
        let mut overrides = SortedMap::new();
        overrides.insert(
            "my-model".to_string(),
            Price {
                input_per_m_tok: 1.0,
                output_per_m_tok: 2.0,
                cached_input_per_m_tok: None,
            },
        );
        let table = PriceTable::new(overrides);
        assert_eq!(
            table.cost_usd("my-model", &usage(2_000_000, 1_000_000, 0)),
            Some(4.0)
        );
        assert_eq!(table.cost_usd("unknown", &usage(1, 1, 0)), None);
    }
}
