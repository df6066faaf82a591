//! How the host describes the provider to use.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::answer_defaults::apply_answer_defaults;
use super::anthropic::AnthropicSettings;
use super::local::apply_local_defaults;
use super::openai::OpenAiSettings;
use super::policy::CallPolicy;
use super::pricing::Price;
use super::quotes::QuotesSettings;
use crate::domain::SortedMap;
use crate::error::{Error, Result};
use crate::json::from_json::FromJson;
use crate::json::tagged::Tagged;

/// The provider settings passed to `Lectern.open({ provider })`: which server
/// ([`ProviderKind`]) and how calls to it behave ([`CallPolicy`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderConfig {
    /// Which server, and its settings.
    pub kind: ProviderKind,
    /// Retries, rate limits and timeouts.
    pub policy: CallPolicy,
    /// Price overrides per model, in US dollars per million tokens.
    pub prices: SortedMap<String, Price>,
    /// `local: true`: the model runs on the reader's device (wllama in the
    /// page, a local server), so it gets the local defaults of
    /// [`super::local`] and of the run limits.
    pub local: bool,
}

/// The server a provider talks to, by `kind` (`'openai'`, `'anthropic'`, `'custom'`).
#[derive(Debug, Clone, PartialEq)]
pub enum ProviderKind {
    /// Any OpenAI-compatible chat-completions server.
    Openai(OpenAiSettings),
    /// Anthropic's Messages API.
    Anthropic(AnthropicSettings),
    /// A host JS function that takes an OpenAI-format request (the function
    /// itself is attached by the JS boundary).
    Custom(CustomSettings),
    /// No model: a book conversation is answered with quotes from its passages.
    Quotes(QuotesSettings),
}

impl<'de> Deserialize<'de> for ProviderKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let tagged = Tagged::read(deserializer, "kind")?;
        match tagged.tag.as_str() {
            "openai" => tagged.fields().map(ProviderKind::Openai),
            "anthropic" => tagged.fields().map(ProviderKind::Anthropic),
            "custom" => tagged.fields().map(ProviderKind::Custom),
            "quotes" => tagged.fields().map(ProviderKind::Quotes),
            _ => Err(tagged.unknown(&["openai", "anthropic", "custom", "quotes"])),
        }
    }
}

/// `provider: { kind: 'custom', ... }` (besides its `call` function).
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CustomSettings {
    /// The model name reported in usage and looked up in prices.
    #[serde(default = "default_custom_model")]
    pub model: String,
    /// Whether the function is asked to stream (`stream: true` in its request).
    #[serde(default = "default_true")]
    pub stream: bool,
    /// The request's `temperature` (none by default: the engine's own sampling).
    #[serde(default)]
    pub temperature: Option<f32>,
    /// The request's `max_tokens` (default [`super::answer_defaults::DEFAULT_MAX_TOKENS`]).
    #[serde(default)]
    pub max_tokens: Option<u32>,
}

fn default_true() -> bool {
    true
}
fn default_custom_model() -> String {
    "custom".into()
}

/// Keys of the provider object that belong to the call policy, not the kind.
const POLICY_KEYS: [&str; 4] = ["maxRetries", "rateLimit", "timeouts", "retry"];

// Read by its own `Deserialize` (a tagged enum), inside records too.
crate::from_json_via_serde!(ProviderConfig);

impl<'de> Deserialize<'de> for ProviderConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut object = match Value::deserialize(deserializer)? {
            Value::Object(map) => map,
            other => {
                return Err(D::Error::custom(format!(
                    "provider must be an object, got {other}"
                )))
            }
        };
        let mut policy = serde_json::Map::new();
        for key in POLICY_KEYS {
            if let Some(value) = object.remove(key) {
                policy.insert(key.to_owned(), value);
            }
        }
        let prices = match object.remove("prices") {
            Some(value) => {
                FromJson::from_json(value).map_err(|e| D::Error::custom(format!("prices: {e}")))?
            }
            None => SortedMap::new(),
        };
        let local = match object.remove("local") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(local)) => local,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "local must be true or false, got {other}"
                )))
            }
        };
        if local {
            apply_local_defaults(&mut policy);
        }
        if let Some(kind) = object.get("kind").and_then(Value::as_str).map(str::to_owned) {
            apply_answer_defaults(&kind, &mut object);
        }
        let policy: CallPolicy = FromJson::from_json(Value::Object(policy)).map_err(D::Error::custom)?;
        let kind: ProviderKind =
            crate::json::value_de::from_value(Value::Object(object)).map_err(D::Error::custom)?;
        Ok(ProviderConfig {
            kind,
            policy,
            prices,
            local,
        })
    }
}

impl ProviderConfig {
    /// The model name requests are sent with.
    pub fn model(&self) -> &str {
        match &self.kind {
            ProviderKind::Openai(OpenAiSettings { model, .. })
            | ProviderKind::Anthropic(AnthropicSettings { model, .. })
            | ProviderKind::Custom(CustomSettings { model, .. })
            | ProviderKind::Quotes(QuotesSettings { model }) => model,
        }
    }

    /// Checks the settings without calling anything.
    pub fn validate(&self) -> Result<()> {
        let (base_url, temperature, max_temperature) = match &self.kind {
            ProviderKind::Openai(s) => (Some(&s.base_url), &s.temperature, 2.0),
            ProviderKind::Anthropic(s) => {
                if s.max_tokens == 0 {
                    return Err(Error::config("provider.maxTokens must be at least 1"));
                }
                if let Some(problem) = s.thinking_problem() {
                    return Err(Error::config(problem));
                }
                (Some(&s.base_url), &s.temperature, 1.0)
            }
            ProviderKind::Custom(s) => (None, &s.temperature, 2.0),
            ProviderKind::Quotes(_) => (None, &None, 2.0),
        };
        if let Some(url) = base_url {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(Error::config(format!(
                    "provider.baseUrl must be an http:// or https:// URL (in a page, a path such as '/v1' is resolved against it), got {url:?}"
                )));
            }
        }
        if self.model().trim().is_empty() {
            return Err(Error::config("provider.model must not be empty"));
        }
        if let Some(t) = temperature {
            if !(0.0..=max_temperature).contains(t) {
                return Err(Error::config(format!(
                    "provider.temperature must be within 0..={max_temperature}, got {t}"
                )));
            }
        }
        self.policy.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_shape() {
        let config: ProviderConfig = serde_json::from_str(
            r#"{"kind":"openai","baseUrl":"http://127.0.0.1:1/v1","model":"m","apiKey":"k","stream":true,
                "maxRetries":5,"rateLimit":{"requestsPerMinute":60},"prices":{"m":{"inputPerMTok":1,"outputPerMTok":2}}}"#,
        )
        .unwrap();
        config.validate().unwrap();
        assert_eq!(config.policy.max_retries, 5);
        assert_eq!(config.policy.rate_limit.requests_per_minute, Some(60));
        assert_eq!(config.prices.get("m").unwrap().output_per_m_tok, 2.0);
        match config.kind {
            ProviderKind::Openai(settings) => {
                assert_eq!(settings.api_key.as_deref(), Some("k"));
                assert!(settings.stream);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn anthropic_defaults() {
        let config: ProviderConfig =
            serde_json::from_str(r#"{"kind":"anthropic","model":"claude-x","apiKey":"k"}"#).unwrap();
        config.validate().unwrap();
        match config.kind {
            ProviderKind::Anthropic(settings) => {
                assert_eq!(settings.base_url, "https://api.anthropic.com/v1");
                assert_eq!(settings.max_tokens, 4096);
                assert_eq!(settings.anthropic_version, "2023-06-01");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(config.policy.max_retries, 2);
    }

    #[test]
    fn a_local_provider_gets_the_local_defaults_where_nothing_is_set() {
        let parse = |json: &str| serde_json::from_str::<ProviderConfig>(json).unwrap();
        let remote = parse(r#"{"kind":"custom"}"#);
        assert!(!remote.local);
        assert_eq!(
            (remote.policy.max_retries, remote.policy.timeouts.first_chunk_ms),
            (2, Some(120_000))
        );
        let local = parse(r#"{"kind":"custom","local":true}"#);
        assert!(local.local);
        assert_eq!(local.policy.max_retries, 0);
        assert_eq!(local.policy.timeouts.first_chunk_ms, Some(600_000));
        assert_eq!(local.policy.timeouts.idle_ms, Some(60_000));
        let overridden = parse(
            r#"{"kind":"openai","baseUrl":"http://127.0.0.1:1/v1","model":"m","local":true,"maxRetries":1,"timeouts":{"firstChunkMs":5000,"idleMs":null}}"#,
        );
        assert!(overridden.local);
        assert_eq!(overridden.policy.max_retries, 1);
        assert_eq!(
            (
                overridden.policy.timeouts.first_chunk_ms,
                overridden.policy.timeouts.idle_ms
            ),
            (Some(5000), None)
        );
        let partly = parse(r#"{"kind":"custom","local":true,"timeouts":{"totalMs":900000}}"#);
        assert_eq!(partly.policy.timeouts.first_chunk_ms, Some(600_000));
        assert_eq!(partly.policy.timeouts.total_ms, Some(900_000));
        let err = serde_json::from_str::<ProviderConfig>(r#"{"kind":"custom","local":"yes"}"#).unwrap_err();
        assert!(err.to_string().contains("local must be true or false"), "{err}");
    }

    #[test]
    fn rejects_bad_settings_with_clear_messages() {
        let err = serde_json::from_str::<ProviderConfig>(
            r#"{"kind":"openai","baseUrl":"x","model":"m","modle":1}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("modle"), "{err}");
        let err = serde_json::from_str::<ProviderConfig>(
            r#"{"kind":"openai","baseUrl":"http://x","model":"m","timeouts":{"firstChunk":5}}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("firstChunk"), "{err}");
        let bad_url: ProviderConfig =
            serde_json::from_str(r#"{"kind":"openai","baseUrl":"ftp://x","model":"m"}"#).unwrap();
        assert!(bad_url.validate().unwrap_err().to_string().contains("baseUrl"));
        let hot: ProviderConfig =
            serde_json::from_str(r#"{"kind":"anthropic","model":"m","temperature":1.5}"#).unwrap();
        assert!(hot.validate().unwrap_err().to_string().contains("temperature"));
        for (thinking, message) in [
            (r#"{"budgetTokens":1023}"#, "at least 1024"),
            (r#"{"budgetTokens":4096}"#, "below provider.maxTokens (4096)"),
        ] {
            let json = format!(r#"{{"kind":"anthropic","model":"m","thinking":{thinking}}}"#);
            let config: ProviderConfig = serde_json::from_str(&json).unwrap();
            let err = config.validate().unwrap_err().to_string();
            assert!(err.contains(message), "{err}");
        }
        let fine: ProviderConfig =
            serde_json::from_str(r#"{"kind":"anthropic","model":"m","thinking":{"budgetTokens":1024}}"#)
                .unwrap();
        fine.validate().unwrap();
    }
}
