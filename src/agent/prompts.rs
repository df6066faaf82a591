//! System prompts, embedded from `prompts/*.md` at build time.

/// The default system prompt of a conversation (`prompts/conversation_system_prompt.md`).
pub const CONVERSATION_SYSTEM_PROMPT: &str = include_str!("../../prompts/conversation_system_prompt.md");
