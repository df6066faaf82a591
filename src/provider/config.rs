//! How the host describes the provider to use.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::{Error, Result};

/// The provider settings passed to `Lectern.open({ provider })`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum ProviderConfig {
    /// Any OpenAI-compatible chat-completions server.
    Openai {
        /// Base URL up to and including `/v1`, e.g. `https://api.openai.com/v1`.
        base_url: String,
        /// Model name sent with each request.
        model: String,
        /// Bearer token; omitted for servers that need none.
        #[serde(default)]
        api_key: Option<String>,
        /// Stream answers (SSE); default true.
        #[serde(default = "default_true")]
        stream: bool,
        /// Extra headers sent with every request.
        #[serde(default)]
        headers: BTreeMap<String, String>,
        /// Sampling temperature.
        #[serde(default)]
        temperature: Option<f32>,
        /// Upper bound on generated tokens.
        #[serde(default)]
        max_tokens: Option<u32>,
    },
}

fn default_true() -> bool {
    true
}

impl ProviderConfig {
    /// Checks the settings without calling anything.
    pub fn validate(&self) -> Result<()> {
        match self {
            ProviderConfig::Openai {
                base_url,
                model,
                temperature,
                ..
            } => {
                if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
                    return Err(Error::config(format!(
                        "provider.baseUrl must start with http:// or https://, got {base_url:?}"
                    )));
                }
                if model.trim().is_empty() {
                    return Err(Error::config("provider.model must not be empty"));
                }
                if let Some(t) = temperature {
                    if !(0.0..=2.0).contains(t) {
                        return Err(Error::config(format!(
                            "provider.temperature must be within 0..=2, got {t}"
                        )));
                    }
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_shape() {
        let config: ProviderConfig = serde_json::from_str(
            r#"{"kind":"openai","baseUrl":"http://127.0.0.1:1/v1","model":"m","apiKey":"k","stream":true}"#,
        )
        .unwrap();
        config.validate().unwrap();
        match config {
            ProviderConfig::Openai { api_key, stream, .. } => {
                assert_eq!(api_key.as_deref(), Some("k"));
                assert!(stream);
            }
        }
    }

    #[test]
    fn rejects_bad_settings_with_clear_messages() {
        let err = serde_json::from_str::<ProviderConfig>(
            r#"{"kind":"openai","baseUrl":"x","model":"m","modle":1}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("modle"), "{err}");
        let bad_url: ProviderConfig =
            serde_json::from_str(r#"{"kind":"openai","baseUrl":"ftp://x","model":"m"}"#).unwrap();
        assert!(bad_url.validate().unwrap_err().to_string().contains("baseUrl"));
    }
}
