//! Conversations out and in: `exportConversation` in Lectern's own format
//! (everything: tool-call records, open paused turns, usage, grants) or as an
//! OpenAI chat-completions `messages` array, and `importConversation` of
//! either, validated whole before anything is written, under new ids.

use serde::Serialize;
use serde_json::{Map, Value};

use super::Agent;
use crate::approval::{Grant, PendingTurn};
use crate::domain::{Conversation, Message, ToolCallRecord, UsageTotals};
use crate::error::{Error, Result};
use crate::json::from_json::FromJson;
use crate::provider::openai::message_json;
use crate::storage::ConversationImport;

mod bundle;
mod checks;
mod fields;
mod openai;
mod remap;

/// The version of the `lectern` format this code writes and reads.
pub const BUNDLE_VERSION: u32 = 1;

/// The most messages (and the most records of each kind) an import may hold.
pub const MAX_IMPORT_RECORDS: usize = 100_000;

/// The shape of an export.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub enum ExportFormat {
    /// Lectern's own bundle: everything, to import into Lectern again.
    #[default]
    Lectern,
    /// The chat-completions `messages` array, as the OpenAI provider sends it.
    #[serde(rename = "openai")]
    OpenAi,
}

/// `exportConversation`'s options.
#[derive(Debug, Clone, Default, PartialEq, Eq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExportOptions {
    /// `lectern` (the default) or `openai`.
    #[serde(default)]
    pub format: ExportFormat,
}

/// A conversation in the `lectern` format (version [`BUNDLE_VERSION`]): each
/// record in the shape Lectern stores and returns it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LecternBundle {
    /// Always `lectern`.
    pub format: &'static str,
    /// [`BUNDLE_VERSION`].
    pub version: u32,
    /// The conversation's record.
    pub conversation: Conversation,
    /// Its messages in order (reasoning included).
    pub messages: Vec<Message>,
    /// Its tool-call records.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Its open paused turns (at most one), resolvable after an import.
    pub pending_turns: Vec<PendingTurn>,
    /// Its usage totals.
    pub usage: UsageTotals,
    /// Its "always allow" grants.
    pub grants: Vec<Grant>,
}

/// What `exportConversation` resolves with: the bundle, or the chat-completions messages.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ConversationExport {
    /// `format: 'lectern'`.
    Lectern(Box<LecternBundle>),
    /// `format: 'openai'`.
    OpenAi(Vec<Value>),
}

impl Agent {
    /// A conversation in `format`: a [`LecternBundle`], or the OpenAI
    /// `messages` array built by the OpenAI provider's own mapping. Waits for a
    /// running turn of the conversation (as `send` does), so it reads a settled
    /// state. `NotFound` if the conversation does not exist.
    pub async fn export_conversation(
        &self,
        conversation_id: &str,
        format: ExportFormat,
    ) -> Result<ConversationExport> {
        let conversation = self
            .store
            .conversation(conversation_id)
            .await?
            .ok_or_else(|| Error::not_found("conversation", conversation_id))?;
        let _turn = self.acquire(conversation_id).await?;
        let messages = self.store.messages(conversation_id).await?;
        if format == ExportFormat::OpenAi {
            let messages = messages.iter().map(|m| message_json(m, false)).collect();
            return Ok(ConversationExport::OpenAi(messages));
        }
        let mut pending_turns = self.archive().await?.pending_turns(Some(conversation_id)).await?;
        pending_turns.retain(|turn| turn.status.is_open());
        let bundle = LecternBundle {
            format: "lectern",
            version: BUNDLE_VERSION,
            conversation,
            messages,
            tool_calls: self.store.tool_calls(conversation_id).await?,
            pending_turns,
            usage: self.store.usage_totals(conversation_id).await?,
            grants: self.store.grants(conversation_id).await?,
        };
        Ok(ConversationExport::Lectern(Box::new(bundle)))
    }

    /// Imports a conversation from a `lectern` bundle, an OpenAI `messages`
    /// array, or `{ format: 'openai', messages, title? }`. Everything is
    /// checked before anything is written (`Import` naming the first fault's
    /// path); it is then stored in one transaction under a new conversation id,
    /// new message ids and new turn ids. Returns the new conversation.
    pub async fn import_conversation(&self, data: Value) -> Result<Conversation> {
        let now = self.clock.now_ms();
        let import = parse(data, now)?;
        self.check_book(&import.conversation).await?;
        let import = remap::with_new_ids(import, now);
        let conversation = import.conversation.clone();
        self.archive().await?.import_conversation(import).await?;
        Ok(conversation)
    }

    /// An imported conversation's book must be in the library.
    async fn check_book(&self, conversation: &Conversation) -> Result<()> {
        let Some(book_id) = &conversation.book_id else {
            return Ok(());
        };
        let Some(library) = &self.library else {
            return Err(Error::import(
                "conversation.bookId",
                "bookId needs books to be enabled",
            ));
        };
        match library.book(book_id).await {
            Ok(_) => Ok(()),
            Err(Error::NotFound { .. }) => Err(Error::import(
                "conversation.bookId",
                format!("book {book_id} is not in the library"),
            )),
            Err(other) => Err(other),
        }
    }
}

/// The import `data` stands for, checked whole, under its own ids.
fn parse(data: Value, now: f64) -> Result<ConversationImport> {
    match data {
        Value::Array(items) => openai::from_messages(items, None, now),
        Value::Object(object) => from_object(object, now),
        _ => Err(Error::import(
            "",
            "expected a Lectern export (an object) or an OpenAI messages array",
        )),
    }
}

fn from_object(object: Map<String, Value>, now: f64) -> Result<ConversationImport> {
    match object.get("format") {
        Some(Value::String(format)) if format == "lectern" => bundle::from_bundle(object),
        Some(Value::String(format)) if format == "openai" => openai::from_object(object, now),
        Some(other) => Err(Error::import(
            "format",
            format!("unknown format {other} (expected 'lectern' or 'openai')"),
        )),
        None => Err(Error::import(
            "format",
            "missing: a Lectern export has format 'lectern'; OpenAI messages come as an array or { format: 'openai', messages }",
        )),
    }
}
