//! The reading-companion rules are in every system message of a book
//! conversation, whatever the persona's prompt or template says, and only
//! once; `search_book`'s schema, its default `top_k` and its empty answer.

use lectern::domain::SortedMap;

use lectern::agent::prompts::PromptLibrary;
use lectern::agent::{book_context_warning, AgentConfig, Persona, RetrievalStrategy};
use lectern::provider::scripted::ScriptedTurn;
use lectern::retrieval::reader::passages::NO_PASSAGES;

use crate::support::harness::books::{book_agent, thursday_pages};

/// A phrase of the reading rules.
const RULE: &str = "the reader must not learn anything past their page";

/// The system message of the first model call of one turn in a book
/// conversation (or a plain one with `bound: false`).
fn first_system(config: AgentConfig, bound: bool) -> String {
    let (builder, book_id) = book_agent(config, thursday_pages(), 2, vec![ScriptedTurn::text("Fine.")]);
    let h = if bound { builder.book(&book_id) } else { builder }.build();
    h.send("Who is Sunday?").unwrap();
    h.model.requests()[0].system.clone().unwrap()
}

fn persona_prompt(text: &str) -> AgentConfig {
    AgentConfig {
        persona: Persona {
            system_prompt: Some(text.into()),
            ..Persona::default()
        },
        ..AgentConfig::default()
    }
}

#[test]
fn a_custom_persona_prompt_without_book_context_still_carries_the_rules_once() {
    let system = first_system(persona_prompt("You are a pirate. Speak like one."), true);
    assert!(system.starts_with("You are a pirate."), "{system}");
    assert_eq!(system.matches(RULE).count(), 1, "{system}");
    assert!(system.contains("## Reading rules"), "{system}");
    assert!(system.contains("is on page 2 of 3"), "{system}");
}

#[test]
fn a_prompt_that_places_book_context_gets_it_there_and_nowhere_else() {
    let system = first_system(
        persona_prompt("Rules first: {{ book_context }}\n\nBe brief."),
        true,
    );
    assert_eq!(system.matches(RULE).count(), 1, "{system}");
    assert!(!system.contains("## Reading rules"), "{system}");
    assert!(
        system.starts_with("Rules first: The reader is reading"),
        "{system}"
    );
}

#[test]
fn a_template_override_without_book_context_still_carries_the_rules_once() {
    let overrides = SortedMap::from([(
        "conversation_system_prompt".to_string(),
        "A terse assistant.".to_string(),
    )]);
    let config = AgentConfig {
        prompts: PromptLibrary::built_in().with_overrides(overrides),
        ..AgentConfig::default()
    };
    let system = first_system(config, true);
    assert!(system.starts_with("A terse assistant."), "{system}");
    assert_eq!(system.matches(RULE).count(), 1, "{system}");
}

#[test]
fn the_built_in_prompt_carries_them_once_and_a_plain_conversation_not_at_all() {
    let system = first_system(AgentConfig::default(), true);
    assert_eq!(system.matches(RULE).count(), 1, "{system}");
    assert!(!system.contains("## Reading rules"), "{system}");
    let plain = first_system(persona_prompt("You are a pirate."), false);
    assert!(!plain.contains(RULE), "{plain}");
    assert!(!plain.contains("Reading rules"), "{plain}");
}

#[test]
fn validate_config_warns_when_a_custom_prompt_omits_book_context() {
    let warns = |config: &AgentConfig| book_context_warning(config);
    let pirate = warns(&persona_prompt("You are a pirate.")).unwrap();
    assert!(
        pirate.starts_with("persona.systemPrompt has no {{book_context}}"),
        "{pirate}"
    );
    assert_eq!(warns(&persona_prompt("A pirate. {{ book_context }}")), None);
    assert_eq!(warns(&AgentConfig::default()), None);
    let named = |name: &str, text: &str| AgentConfig {
        prompts: PromptLibrary::built_in()
            .with_overrides(SortedMap::from([(name.to_string(), text.to_string())])),
        persona: Persona {
            prompt: Some(name.into()),
            ..Persona::default()
        },
        ..AgentConfig::default()
    };
    let terse = warns(&named("terse", "A terse assistant.")).unwrap();
    assert!(terse.starts_with("prompt \"terse\" has no"), "{terse}");
    assert!(warns(&named("conversation_system_prompt", "Replaced, no rules.")).is_some());
    assert_eq!(warns(&named("placed", "Rules: {{book_context}}")), None);
}

#[test]
fn search_book_requires_a_query_and_defaults_to_five_passages() {
    let pages: Vec<String> = (1..=12)
        .map(|n| format!("Page {n}: Syme walked by the river and thought of Gregory."))
        .collect();
    let config = AgentConfig {
        retrieval: RetrievalStrategy::ToolUse,
        ..AgentConfig::default()
    };
    let (builder, book_id) = book_agent(
        config,
        pages,
        10,
        vec![
            ScriptedTurn::tools(&[("search_book", r#"{"query":"Syme river"}"#)]),
            ScriptedTurn::tools(&[("search_book", r#"{"top_k":3}"#)]),
            ScriptedTurn::tools(&[("search_book", r#"{"query":"   "}"#)]),
            ScriptedTurn::text("Done."),
        ],
    );
    let h = builder.book(&book_id).build();
    let reply = h.send("The river?").unwrap();
    let definition = &h.model.requests()[0].tools[0];
    assert_eq!(definition.parameters["required"], serde_json::json!(["query"]));
    assert_eq!(definition.parameters["properties"]["top_k"]["default"], 5);
    let results: Vec<String> = reply
        .tool_calls
        .iter()
        .map(|c| c.result.clone().unwrap_or_default())
        .collect();
    assert_eq!(results[0].matches("[Pages ").count(), 5, "{}", results[0]);
    assert!(results[0]
        .lines()
        .all(|l| !l.starts_with("[Pages 11") && !l.starts_with("[Pages 12")));
    assert!(
        reply.tool_calls[1]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("query"),
        "{:?}",
        reply.tool_calls[1]
    );
    assert_eq!(results[2], NO_PASSAGES);
    // The model reads that answer as the tool's result.
    let last = h
        .model
        .requests()
        .last()
        .unwrap()
        .messages
        .last()
        .unwrap()
        .content
        .clone();
    assert_eq!(last, NO_PASSAGES);
}
