//! The options enums tagged by a field (`provider.kind`, `embedder.kind`,
//! `context.strategy`) read the same, and report the same errors, whether
//! serde's derive or `lectern::json::tagged` reads them (issue 12 swapped the first
//! for the second to shrink the wasm module).

use lectern::agent::ContextStrategy;
use lectern::provider::{ProviderConfig, ProviderKind};
use lectern::retrieval::config::EmbedderConfig;

fn parse<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

fn error<T: serde::de::DeserializeOwned + std::fmt::Debug>(json: &str) -> String {
    parse::<T>(json).unwrap_err()
}

#[test]
fn context_strategies() {
    assert_eq!(
        parse::<ContextStrategy>(r#"{"strategy":"fullHistory","maxMessages":7}"#),
        Ok(ContextStrategy::FullHistory { max_messages: 7 })
    );
    assert_eq!(
        parse::<ContextStrategy>(r#"{"maxTokens":900,"strategy":"tokenBudget"}"#),
        Ok(ContextStrategy::TokenBudget { max_tokens: 900 })
    );
    assert!(error::<ContextStrategy>(r#"{"maxMessages":7}"#).contains("missing field `strategy`"));
    assert!(error::<ContextStrategy>(r#"{"strategy":"all"}"#)
        .contains("unknown variant `all`, expected one of `fullHistory`, `tokenBudget`, `summarize`"));
    assert!(error::<ContextStrategy>(r#"{"strategy":"tokenBudget"}"#).contains("missing field `maxTokens`"));
    assert_eq!(
        parse::<ContextStrategy>(r#"{"strategy":"summarize","maxTokens":900}"#),
        Ok(ContextStrategy::Summarize {
            max_tokens: 900,
            keep_recent: 6
        })
    );
    assert_eq!(
        parse::<ContextStrategy>(r#"{"strategy":"summarize","maxTokens":900,"keepRecent":2}"#),
        Ok(ContextStrategy::Summarize {
            max_tokens: 900,
            keep_recent: 2
        })
    );
    assert!(
        error::<ContextStrategy>(r#"{"strategy":"summarize","keepRecent":2}"#)
            .contains("missing field `maxTokens`")
    );
    assert!(
        error::<ContextStrategy>(r#"{"strategy":"fullHistory","maxMessages":7,"maxTokens":3}"#)
            .contains("unknown field `maxTokens`")
    );
    assert!(
        error::<ContextStrategy>(r#"{"strategy":"fullHistory","maxMessages":-1}"#)
            .contains("invalid value: integer `-1`")
    );
}

#[test]
fn embedders() {
    assert!(matches!(
        parse::<EmbedderConfig>(r#"{"kind":"hashed","dimensions":64}"#),
        Ok(EmbedderConfig::Hashed(s)) if s.dimensions == 64
    ));
    assert!(matches!(
        parse::<EmbedderConfig>(r#"{"kind":"hashed"}"#),
        Ok(EmbedderConfig::Hashed(_))
    ));
    assert!(matches!(
        parse::<EmbedderConfig>(r#"{"kind":"openai","baseUrl":"http://x/v1","model":"e","batchSize":8}"#),
        Ok(EmbedderConfig::Openai(s)) if s.batch_size == 8 && s.model == "e"
    ));
    assert!(matches!(
        parse::<EmbedderConfig>(r#"{"kind":"custom","model":"mine","batchSize":3}"#),
        Ok(EmbedderConfig::Custom(_))
    ));
    assert!(error::<EmbedderConfig>(r#"{"dimensions":64}"#).contains("missing field `kind`"));
    assert!(matches!(
        parse::<EmbedderConfig>(r#"{"kind":"minilm","modelUrl":"/m/model.safetensors","vocabUrl":"/m/vocab.txt"}"#),
        Ok(EmbedderConfig::Minilm(s)) if s.cache && s.vocab_url == "/m/vocab.txt"
    ));
    assert!(
        error::<EmbedderConfig>(r#"{"kind":"minilm","modelUrl":"m"}"#).contains("missing field `vocabUrl`")
    );
    assert!(error::<EmbedderConfig>(r#"{"kind":"bert"}"#)
        .contains("unknown variant `bert`, expected one of `none`, `hashed`, `openai`, `custom`, `minilm`"));
    assert_eq!(
        parse::<EmbedderConfig>(r#"{"kind":"none"}"#).ok(),
        Some(EmbedderConfig::None)
    );
    assert_eq!(
        EmbedderConfig::default(),
        EmbedderConfig::None,
        "no embedder by default"
    );
    assert!(error::<EmbedderConfig>(r#"{"kind":"none","dimensions":3}"#).contains("unknown field"));
    assert!(error::<EmbedderConfig>(r#"{"kind":"hashed","dim":64}"#).contains("unknown field `dim`"));
    assert!(error::<EmbedderConfig>(r#"{"kind":"openai","model":"e"}"#).contains("missing field `baseUrl`"));
}

#[test]
fn providers() {
    let config = parse::<ProviderConfig>(
        r#"{"kind":"anthropic","baseUrl":"https://a/v1","model":"c","apiKey":"k","maxTokens":9,"maxRetries":2}"#,
    )
    .unwrap();
    assert!(matches!(&config.kind, ProviderKind::Anthropic(s) if s.max_tokens == 9));
    assert!(
        matches!(parse::<ProviderKind>(r#"{"kind":"custom"}"#), Ok(ProviderKind::Custom(s)) if s.model == "custom")
    );
    assert!(matches!(
        parse::<ProviderKind>(r#"{"kind":"openai","baseUrl":"http://x/v1","model":"m"}"#),
        Ok(ProviderKind::Openai(s)) if s.stream
    ));
    assert!(error::<ProviderConfig>(r#"{"model":"m"}"#).contains("missing field `kind`"));
    assert!(error::<ProviderConfig>(r#"{"kind":"ollama","model":"m"}"#)
        .contains("unknown variant `ollama`, expected one of `openai`, `anthropic`, `custom`"));
    assert!(
        error::<ProviderConfig>(r#"{"kind":"openai","baseUrl":"http://x","model":"m","modle":"n"}"#)
            .contains("unknown field `modle`")
    );
    assert!(error::<ProviderKind>(r#"{"kind":"custom","stream":"yes"}"#)
        .contains("invalid type: string \"yes\", expected a boolean"));
}
