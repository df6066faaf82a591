//! The sampling and answer-length defaults a provider gets where the host set
//! none: a temperature of 0.7 (`openai`, `anthropic`) and an answer cap of
//! 2,048 tokens (`openai`, `custom`; `anthropic` has its own required
//! `maxTokens`, 4,096), so a small model cannot ramble for minutes.
//!
//! Models that reason before they answer get neither: OpenAI's o-series and
//! GPT-5 refuse a temperature, and reasoning models spend the token cap on
//! thinking; so does Anthropic's extended thinking, which refuses a changed
//! temperature. A custom function's engine keeps its own sampling (WebLLM's
//! from the model's config, wllama's `sampling`). `null` sends none.

use serde_json::{json, Map, Value};

/// The temperature sent when the host sets none.
pub const DEFAULT_TEMPERATURE: f32 = 0.7;

/// The answer cap (`max_tokens`) sent when the host sets none.
pub const DEFAULT_MAX_TOKENS: u32 = 2048;

/// Fills `temperature` and `maxTokens` of the provider object of `kind` where
/// the host left them out, and drops those the host set to `null`.
pub fn apply_answer_defaults(kind: &str, provider: &mut Map<String, Value>) {
    let model = provider.get("model").and_then(Value::as_str).unwrap_or("");
    let reasons = is_reasoning_model(model) || provider.get("thinking").is_some_and(|t| !t.is_null());
    let temperature = matches!(kind, "openai" | "anthropic") && !reasons;
    let max_tokens = matches!(kind, "openai" | "custom") && !reasons;
    fill(
        provider,
        "temperature",
        temperature.then(|| json!(DEFAULT_TEMPERATURE)),
    );
    fill(
        provider,
        "maxTokens",
        max_tokens.then(|| json!(DEFAULT_MAX_TOKENS)),
    );
}

/// `key` absent: `default`, if any. `key: null`: removed (nothing is sent).
fn fill(provider: &mut Map<String, Value>, key: &str, default: Option<Value>) {
    match provider.get(key) {
        Some(Value::Null) => {
            provider.remove(key);
        }
        Some(_) => {}
        None => {
            if let Some(value) = default {
                provider.insert(key.to_owned(), value);
            }
        }
    }
}

/// Whether `model` names a model that reasons before it answers: OpenAI's
/// o-series, GPT-5 and gpt-oss, DeepSeek's reasoner and R1, QwQ, and `…thinking…` models.
pub fn is_reasoning_model(model: &str) -> bool {
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    let o_series = name
        .strip_prefix('o')
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
    o_series
        || name.starts_with("gpt-5")
        || name.starts_with("gpt-oss")
        || name.contains("reasoner")
        || name.contains("thinking")
        || name.starts_with("qwq")
        || name.split(['-', ':', '_']).any(|part| part == "r1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults(provider: Value) -> Value {
        let Value::Object(mut map) = provider else {
            unreachable!()
        };
        let kind = map["kind"].as_str().unwrap().to_owned();
        apply_answer_defaults(&kind, &mut map);
        Value::Object(map)
    }

    #[test]
    fn an_ordinary_model_gets_both_where_its_kind_takes_them() {
        let openai = defaults(json!({"kind": "openai", "model": "llama3.2"}));
        assert_eq!(
            (openai["temperature"].as_f64(), openai["maxTokens"].as_u64()),
            (Some(0.7f32 as f64), Some(2048))
        );
        let anthropic = defaults(json!({"kind": "anthropic", "model": "claude-sonnet-4-5"}));
        assert_eq!(
            (anthropic["temperature"].as_f64(), anthropic.get("maxTokens")),
            (Some(0.7f32 as f64), None)
        );
        let custom = defaults(json!({"kind": "custom", "model": "Llama-3.2-1B"}));
        assert_eq!(
            (custom.get("temperature"), custom["maxTokens"].as_u64()),
            (None, Some(2048))
        );
    }

    #[test]
    fn reasoning_models_and_extended_thinking_get_neither() {
        for model in [
            "o3-mini",
            "o1",
            "o4-mini-2025-04-16",
            "gpt-5",
            "openai/gpt-oss-20b",
            "deepseek-reasoner",
            "deepseek-r1:7b",
            "qwq-32b",
            "qwen3-30b-a3b-thinking",
        ] {
            let p = defaults(json!({"kind": "openai", "model": model}));
            assert_eq!(
                (p.get("temperature"), p.get("maxTokens")),
                (None, None),
                "{model}"
            );
        }
        let thinking = defaults(
            json!({"kind": "anthropic", "model": "claude-sonnet-4-5", "thinking": {"budgetTokens": 2048}}),
        );
        assert_eq!(thinking.get("temperature"), None);
        for model in ["gpt-4o-mini", "olmo-2", "llama3.2", "mistral-large"] {
            assert!(!is_reasoning_model(model), "{model}");
        }
    }

    #[test]
    fn what_the_host_set_stays_and_null_sends_none() {
        let p = defaults(json!({"kind": "openai", "model": "m", "temperature": 0.1, "maxTokens": null}));
        assert_eq!((p["temperature"].as_f64(), p.get("maxTokens")), (Some(0.1), None));
    }
}
