//! `Lectern.open`'s option rules, checked natively: the same `OpenOptions`
//! the wasm reads, and the one rule list `validateConfig` reports.

use crate::support::open_options::options;
use lectern::agent::{broken_rules, validate_config, AgentConfig, HostFunctions, OpenOptions};
use lectern::provider::ProviderConfig;
use lectern::tool::ToolRegistry;
use lectern::Error;
use serde_json::json;

fn message(error: Error) -> String {
    match error {
        Error::Config { message } => message,
        other => panic!("expected a ConfigError, got {other:?}"),
    }
}

#[test]
fn good_options_pass_and_build_a_config() {
    let options = options(json!({"dbName": "books", "retrieval": {"passages": 3}}));
    options.check(HostFunctions::default()).unwrap();
    let config = options.agent_config(Vec::new()).unwrap();
    assert_eq!(config.retrieved_passages, 3);
    assert!(broken_rules(&config).is_empty());
}

#[test]
fn each_storage_and_retrieval_rule_names_its_option() {
    let cases = [
        (json!({"dbName": ""}), "dbName must not be empty"),
        (
            json!({"retrieval": {"indexMinChunks": 100}}),
            "retrieval.indexMinChunks must be at least 256",
        ),
        (
            json!({"retrieval": {"maxContextTokens": 0}}),
            "retrieval.maxContextTokens must be at least 1",
        ),
        (
            json!({"retrieval": {"passages": 0}}),
            "retrieval.passages within 1..=20",
        ),
        (json!({"retrieval": {"chunkChars": 50}}), "chunkChars >= 100"),
    ];
    for (extra, expected) in cases {
        let error = message(
            options(extra.clone())
                .check(HostFunctions::default())
                .unwrap_err(),
        );
        assert!(error.contains(expected), "{extra}: {error}");
    }
}

#[test]
fn host_functions_must_match_their_kinds() {
    let custom: OpenOptions =
        serde_json::from_value(json!({"provider": {"kind": "custom", "model": "m"}})).unwrap();
    let error = message(custom.check(HostFunctions::default()).unwrap_err());
    assert!(error.contains("needs provider.call"), "{error}");
    custom
        .check(HostFunctions {
            provider_call: true,
            embed: false,
        })
        .unwrap();
    let stray = HostFunctions {
        provider_call: false,
        embed: true,
    };
    let error = message(options(json!({})).check(stray).unwrap_err());
    assert_eq!(error, "embedder.embed is only for kind: 'custom'");
}

#[test]
fn open_rejects_with_the_first_rule_validate_config_reports() {
    let cases = [
        (json!({"limits": {"maxIterations": 0}}), "limits.maxIterations"),
        (json!({"budget": {"maxTokens": 0}}), "budget: maxTokens"),
        (
            json!({"maxToolResultChars": 0}),
            "maxToolResultChars must be at least 1",
        ),
        (
            json!({"context": {"strategy": "tokenBudget", "maxTokens": 0}}),
            "context limits",
        ),
        (json!({"builtinTools": ["weather"]}), "unknown built-in tool"),
        (
            json!({"allowedTools": [], "toolShell": {"allowedTools": []}}),
            "not both",
        ),
    ];
    for (extra, expected) in cases {
        let error = message(options(extra.clone()).agent_config(Vec::new()).unwrap_err());
        assert!(error.contains(expected), "{extra}: {error}");
    }
    // validateConfig reports every broken rule of a config built in Rust.
    let provider: ProviderConfig =
        serde_json::from_value(json!({"kind": "openai", "baseUrl": "http://127.0.0.1:1/v1", "model": "m"}))
            .unwrap();
    let mut config = AgentConfig {
        max_tool_result_chars: 0,
        ..AgentConfig::default()
    };
    config.limits.max_iterations = 0;
    let broken = broken_rules(&config);
    assert_eq!(broken.len(), 2, "{broken:?}");
    let report = validate_config(&provider, &config, &ToolRegistry::new());
    assert!(!report.valid);
    for rule in &broken {
        assert!(
            report.errors.contains(rule),
            "{rule} missing from {:?}",
            report.errors
        );
    }
}

#[test]
fn without_an_approvals_default_only_read_only_tools_run_unasked() {
    use lectern::approval::ApprovalPolicy;
    let by_kind = options(json!({})).agent_config(Vec::new()).unwrap();
    assert_eq!(by_kind.approvals.default_policy, None, "ask unless read-only");
    assert!(by_kind.approvals.always_runs("lookup", true, false));
    assert!(!by_kind.approvals.always_runs("save", false, false));
    let given = options(json!({"approvals": {"default": "auto"}}));
    let given = given.agent_config(Vec::new()).unwrap();
    assert_eq!(given.approvals.default_policy, Some(ApprovalPolicy::Auto));
    assert!(given.approvals.always_runs("save", false, false));
}
