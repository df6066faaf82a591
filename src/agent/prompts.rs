//! System prompt templates: embedded from `prompts/*.md` at build time,
//! replaceable at runtime, with `{{variables}}` filled per call.

use crate::domain::SortedMap;
use crate::error::{Error, Result};

/// The template a conversation uses unless the persona names another.
pub const DEFAULT_PROMPT: &str = "conversation_system_prompt";

/// The template that instructs the model to summarise older history (the
/// `summarize` context strategy).
pub const SUMMARIZE_PROMPT: &str = "summarize_history";

/// The templates shipped in `prompts/`.
const BUILT_IN: &[(&str, &str)] = &[
    (
        DEFAULT_PROMPT,
        include_str!("../../prompts/conversation_system_prompt.md"),
    ),
    (
        SUMMARIZE_PROMPT,
        include_str!("../../prompts/summarize_history.md"),
    ),
];

/// Named prompt templates.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptLibrary {
    templates: SortedMap<String, String>,
}

impl Default for PromptLibrary {
    fn default() -> Self {
        Self::built_in()
    }
}

impl PromptLibrary {
    /// The templates of `prompts/`.
    pub fn built_in() -> Self {
        PromptLibrary {
            templates: BUILT_IN
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// Replaces or adds templates by name.
    pub fn with_overrides(mut self, overrides: SortedMap<String, String>) -> Self {
        self.templates.extend(overrides);
        self
    }

    /// The names of every template.
    pub fn names(&self) -> Vec<&str> {
        self.templates.keys().map(String::as_str).collect()
    }

    /// The raw template called `name`; `ConfigError` if there is none.
    pub fn template(&self, name: &str) -> Result<&str> {
        self.templates.get(name).map(String::as_str).ok_or_else(|| {
            Error::config(format!(
                "unknown prompt template {name:?} (known: {})",
                self.names().join(", ")
            ))
        })
    }

    /// Whether `name` is a shipped template the host did not replace.
    pub fn is_built_in(&self, name: &str) -> bool {
        BUILT_IN
            .iter()
            .any(|(built_in, text)| *built_in == name && self.templates.get(name).is_some_and(|t| t == text))
    }

    /// The template `name` with its variables filled.
    pub fn render(&self, name: &str, variables: &SortedMap<String, String>) -> Result<String> {
        Ok(fill(self.template(name)?, variables))
    }
}

/// Replaces each `{{ name }}` with its value; unknown names stay as written.
pub fn fill(template: &str, variables: &SortedMap<String, String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        match after.find("}}") {
            Some(close) => {
                let name = after[..close].trim();
                match variables.get(name) {
                    Some(value) => out.push_str(value),
                    None => out.push_str(&rest[open..open + 2 + close + 2]),
                }
                rest = &after[close + 2..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The names of the `{{ name }}` placeholders of a template, trimmed, in order.
pub fn placeholders(template: &str) -> impl Iterator<Item = &str> {
    template
        .split("{{")
        .skip(1)
        .filter_map(|after| after.split_once("}}").map(|(name, _)| name.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> SortedMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn fills_known_variables_and_keeps_unknown_ones() {
        let out = fill(
            "Hi {{name}}, today is {{ date }}. {{missing}} {{unclosed",
            &vars(&[("name", "Ann"), ("date", "Monday")]),
        );
        assert_eq!(out, "Hi Ann, today is Monday. {{missing}} {{unclosed");
    }

    #[test]
    fn built_in_first_and_overridable() {
        let library = PromptLibrary::built_in();
        assert!(library.render(DEFAULT_PROMPT, &SortedMap::new()).unwrap().len() > 20);
        let err = library.render("nope", &SortedMap::new()).unwrap_err();
        assert_eq!(err.name(), "ConfigError");
        let custom = library.with_overrides(vars(&[(DEFAULT_PROMPT, "Be {{mood}}.")]));
        assert_eq!(
            custom
                .render(DEFAULT_PROMPT, &vars(&[("mood", "brief")]))
                .unwrap(),
            "Be brief."
        );
    }
}
