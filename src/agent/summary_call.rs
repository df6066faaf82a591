//! One summary call of the `summarize` context strategy: the previous
//! summary and a run of older messages in, the extended summary out. It
//! uses the conversation's model with no tools, streams nothing to the host,
//! and is checked against the budgets and counted in the usage like any call.

use super::compress::summary_room;
use super::prompts::SUMMARIZE_PROMPT;
use super::Agent;
use crate::domain::{Message, Role};
use crate::error::Result;
use crate::provider::ModelRequest;

/// The most characters of one message the summary call sees.
const TRANSCRIPT_MESSAGE_CHARS: usize = 4_000;

/// `text` cut to at most `max` characters (on a character boundary), marked when cut.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{} […]", &text[..end]),
        None => text.to_owned(),
    }
}

/// One message as a transcript line (or lines, for tool calls).
fn transcript_line(message: &Message) -> String {
    let content = clip(message.content.trim(), TRANSCRIPT_MESSAGE_CHARS);
    match message.role {
        Role::User => format!("Reader: {content}"),
        Role::System => format!("Note: {content}"),
        Role::ToolResult => format!("Tool result: {content}"),
        Role::Assistant => {
            let mut lines: Vec<String> = Vec::new();
            if !content.is_empty() {
                lines.push(format!("Assistant: {content}"));
            }
            for call in &message.tool_calls {
                let arguments = clip(&call.arguments, TRANSCRIPT_MESSAGE_CHARS);
                lines.push(format!(
                    "Assistant called the tool {} with {arguments}",
                    call.name
                ));
            }
            lines.join("\n")
        }
    }
}

/// The user message of a summary call: the summary so far and the messages to add.
pub fn summary_input(previous: Option<&str>, messages: &[Message]) -> String {
    let transcript: Vec<String> = messages.iter().map(transcript_line).collect();
    format!(
        "Summary so far:\n{}\n\nMessages to add:\n{}",
        previous.unwrap_or("(none yet)"),
        transcript.join("\n\n")
    )
}

impl Agent {
    /// The request of one summary call.
    pub(super) fn summary_request(
        &self,
        previous: Option<&str>,
        messages: &[Message],
        max_tokens: usize,
    ) -> Result<ModelRequest> {
        let room = summary_room(max_tokens);
        let mut variables = self.config.prompt_variables.clone();
        // About three words for every four tokens.
        variables.insert("max_words".into(), (room * 3 / 4).to_string());
        let system = self.config.prompts.render(SUMMARIZE_PROMPT, &variables)?;
        let input = summary_input(previous, messages);
        let conversation_id = messages.first().map_or("", |m| m.conversation_id.as_str());
        Ok(ModelRequest {
            system: Some(system),
            messages: vec![Message::new(
                String::new(),
                conversation_id,
                Role::User,
                input,
                0.0,
            )],
            tools: Vec::new(),
            temperature: self.config.temperature(),
            max_tokens: Some(room as u32),
            response_format: None,
            // A summary is the configured model's work, whatever a turn asks.
            model: None,
            tools_called: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ToolCall;

    #[test]
    fn clipping_respects_character_boundaries() {
        assert_eq!(clip("héllo", 10), "héllo");
        assert_eq!(clip("héllo", 2), "hé […]");
        assert_eq!(clip("日本語テキスト", 3), "日本語 […]");
    }

    #[test]
    fn the_transcript_names_who_said_what() {
        let user = Message::new(String::new(), "c", Role::User, "Who is Syme?", 0.0);
        let mut call = Message::new(String::new(), "c", Role::Assistant, "", 0.0);
        call.tool_calls = vec![ToolCall {
            id: "1".into(),
            name: "search_book".into(),
            arguments: r#"{"query":"Syme"}"#.into(),
        }];
        let result = Message::new(String::new(), "c", Role::ToolResult, "A poet.", 0.0);
        let input = summary_input(Some("They met."), &[user, call, result]);
        assert_eq!(
            input,
            "Summary so far:\nThey met.\n\nMessages to add:\nReader: Who is Syme?\n\n\
             Assistant called the tool search_book with {\"query\":\"Syme\"}\n\nTool result: A poet."
        );
        assert!(summary_input(None, &[]).contains("(none yet)"));
    }
}
