//! Assembling the system message of one model call: the persona's prompt with
//! its variables filled, the turn's mentions and the conversation's working state.

use serde_json::Value;

use super::{Agent, AgentConfig};
use crate::domain::Book;
use crate::domain::SortedMap;
use crate::domain::{Conversation, Mention};
use crate::error::{Error, Result};

/// What one model call's system message is built from.
pub struct SystemInputs<'a> {
    /// The conversation (title, working state).
    pub conversation: &'a Conversation,
    /// The user (tenant) of the turn.
    pub user_id: Option<&'a str>,
    /// Resolved mentions of this turn.
    pub mentions: &'a [(Mention, String)],
    /// Today's date, `YYYY-MM-DD`.
    pub date: String,
    /// The conversation's book, if it has one.
    pub book: Option<&'a Book>,
    /// Passages retrieved for this turn (`alwaysRetrieve`), formatted.
    pub passages: Option<&'a str>,
}

/// How the answer cites the numbered passages (`[1]`): Lectern checks each
/// sentence against the passages it cites (`retrieval::sentence_check`).
pub const CITE_RULE: &str = "After each sentence, cite its passage's number, like [1].";

/// What the system prompt says about the book the reader is reading.
fn book_context(book: &Book) -> String {
    let author = book
        .author
        .as_deref()
        .map(|a| format!(" by {a}"))
        .unwrap_or_default();
    let page = book.current_page;
    format!(
        "The reader is reading \"{title}\"{author} and is on page {page} of {count}. Answer questions about the book \
         in a few sentences, only from the passages of it given to you below or that you retrieve with the \
         search_book tool; they never go past page {page}. If the passages do not hold the answer, say that the book \
         has not told it by page {page}, and do not guess. If a question is about what happens after page {page}, \
         say so and offer to help with what the reader has read so far. Never use what you may already know about \
         this book, its plot or its ending: the reader must not learn anything past their page.",
        title = book.title,
        count = book.page_count,
    )
}

/// The system message for one model call.
pub fn system_message(config: &AgentConfig, inputs: &SystemInputs<'_>) -> Result<String> {
    let mut variables: SortedMap<String, String> = config.prompt_variables.clone();
    variables.insert("date".into(), inputs.date.clone());
    variables.insert("conversation_title".into(), inputs.conversation.title.clone());
    if let Some(user) = inputs.user_id {
        variables.insert("user_id".into(), user.to_owned());
    }
    let rules = inputs.book.map(book_context);
    variables.insert("book_context".into(), rules.clone().unwrap_or_default());
    if let Some(book) = inputs.book {
        variables.insert("book_title".into(), book.title.clone());
        variables.insert("current_page".into(), book.current_page.to_string());
        variables.insert("page_count".into(), book.page_count.to_string());
    }
    let mut text = match &config.persona.system_prompt {
        Some(prompt) => super::prompts::fill(prompt, &variables),
        None => config.prompts.render(config.prompt_name(), &variables)?,
    };
    // An empty {{book_context}} leaves a blank paragraph behind.
    while text.contains("\n\n\n") {
        text = text.replace("\n\n\n", "\n\n");
    }
    // The reading rules cannot be dropped by a prompt that leaves them out.
    if let Some(rules) = rules.filter(|rules| !text.contains(rules.as_str())) {
        text.push_str(&format!("\n\n## Reading rules\n\n{rules}\n"));
    }
    if let (Some(passages), Some(book)) = (inputs.passages, inputs.book) {
        let cite = if config.cite_passages {
            format!("{CITE_RULE}\n\n")
        } else {
            String::new()
        };
        text.push_str(&format!(
            "\n\n## Passages from the book (up to page {})\n\n{cite}{passages}\n",
            book.current_page
        ));
    }
    if !inputs.mentions.is_empty() {
        text.push_str("\n\n## Items the user referred to\n");
        for (mention, content) in inputs.mentions {
            text.push_str(&format!(
                "\n### {} {}\n{}\n",
                mention.kind,
                mention.id,
                content.trim_end()
            ));
        }
    }
    if let Some(state) = inputs
        .conversation
        .working_state
        .as_ref()
        .filter(|s| !s.is_null())
    {
        text.push_str("\n\n## Working state\n```json\n");
        text.push_str(&serde_json::to_string_pretty(state).unwrap_or_else(|_| Value::Null.to_string()));
        text.push_str("\n```\n");
    }
    Ok(text)
}

impl Agent {
    /// The system message a conversation's next model call begins with, up
    /// to what its turn adds (the passages `alwaysRetrieve` finds, the items
    /// it mentions): what a local model can read ahead of the question while
    /// the reader reads. `NotFound` for an unknown conversation.
    pub async fn system_prompt(&self, conversation_id: &str) -> Result<String> {
        let conversation = self
            .store
            .conversation(conversation_id)
            .await?
            .ok_or_else(|| Error::not_found("conversation", conversation_id))?;
        let book = match (&conversation.book_id, &self.library) {
            (Some(id), Some(library)) => Some(library.book(id).await?),
            _ => None,
        };
        let inputs = SystemInputs {
            conversation: &conversation,
            user_id: None,
            mentions: &[],
            date: iso_date(self.clock.now_ms()),
            book: book.as_ref(),
            passages: None,
        };
        system_message(&self.config, &inputs)
    }
}

/// `YYYY-MM-DD` of a time in milliseconds since the epoch (UTC).
pub fn iso_date(now_ms: f64) -> String {
    let days = (now_ms / 86_400_000.0).floor() as i64;
    let (year, month, day) = crate::runtime::time::civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn conversation() -> Conversation {
        Conversation {
            id: "c".into(),
            title: "Trip".into(),
            created_at: 0.0,
            book_id: None,
            working_state: Some(json!({"city": "Oslo"})),
        }
    }

    #[test]
    fn fills_variables_and_appends_mentions_and_working_state() {
        let config = AgentConfig {
            persona: super::super::Persona {
                system_prompt: Some("Planning {{conversation_title}} for {{user_id}} on {{date}}.".into()),
                ..Default::default()
            },
            ..AgentConfig::default()
        };
        let mention = Mention {
            kind: "document".into(),
            id: "d1".into(),
        };
        let inputs = SystemInputs {
            conversation: &conversation(),
            user_id: Some("u-7"),
            mentions: &[(mention, "Budget: 900 EUR".into())],
            date: iso_date(1_700_000_000_000.0),
            book: None,
            passages: None,
        };
        let text = system_message(&config, &inputs).unwrap();
        assert!(text.starts_with("Planning Trip for u-7 on 2023-11-14."), "{text}");
        assert!(text.contains("### document d1\nBudget: 900 EUR"));
        assert!(text.contains("## Working state\n```json\n{\n  \"city\": \"Oslo\"\n}\n```"));
    }

    #[test]
    fn dates() {
        assert_eq!(iso_date(0.0), "1970-01-01");
        assert_eq!(iso_date(951_782_400_000.0), "2000-02-29");
    }
}
