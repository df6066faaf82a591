//! The records the sync document holds besides the stored ones
//! ([`crate::domain::Conversation`], [`crate::domain::Message`],
//! [`crate::domain::ToolCallRecord`]): each a JSON string in its map.

use serde::{Deserialize, Serialize};

use crate::domain::is_book_id;
use crate::json::from_json::FromJson;

/// The reader's place in a book, as the last device to move it left it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncedPosition {
    /// The page (1-based).
    pub page: u32,
    /// When it was set, ms since the epoch (the device's clock: shown, never used to merge).
    pub updated_at: f64,
    /// The device that set it.
    pub device: String,
}

/// A book the user shared: the `exportBook` bundle another device imports it
/// from, under the id the book has on every device (the `books` key).
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncedBook {
    /// The book's title.
    pub title: String,
    /// Its author, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Where its bundle is: `https://…`, `http://…` or a path of the site (`/…`).
    pub bundle_url: String,
    /// When it was shared, ms since the epoch (the device's clock: shown, never used to merge).
    pub updated_at: f64,
    /// The device that shared it.
    pub device: String,
}

/// The longest bundle URL a shared book may have (characters).
pub const MAX_BUNDLE_URL_CHARS: usize = 2048;

impl SyncedBook {
    /// Why this record cannot be a shared book under `id`, if it cannot: the
    /// id must be a book id (1 to 64 of `A-Z a-z 0-9 - _`, as `addBook`
    /// takes), the URL one of the three kinds, the title not empty.
    pub fn problem(&self, id: &str) -> Option<String> {
        if !is_book_id(id) {
            return Some(format!("`{id}` is not a book id (1 to 64 of A-Z a-z 0-9 - _)"));
        }
        if self.title.trim().is_empty() {
            return Some("a shared book needs a title".to_owned());
        }
        let url = &self.bundle_url;
        let url_ok = url.starts_with("https://")
            || url.starts_with("http://")
            || (url.starts_with('/') && !url.starts_with("//"));
        if !url_ok || url.chars().count() > MAX_BUNDLE_URL_CHARS {
            return Some(format!(
                "a bundle URL is https://, http:// or a path of the site (/…), at most {MAX_BUNDLE_URL_CHARS} characters"
            ));
        }
        None
    }
}

/// A setting the site chose to sync (a theme, a persona's name): any JSON
/// value, the last device to set it wins.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncedSetting {
    /// Its value.
    pub value: serde_json::Value,
    /// When it was set, ms since the epoch (the device's clock: shown, never used to merge).
    pub updated_at: f64,
    /// The device that set it.
    pub device: String,
}

/// Words a setting's name may not hold (in any case): a secret has no place
/// in the document, which every device of the user and the server keep.
const SECRET_WORDS: [&str; 6] = ["apikey", "api_key", "api-key", "token", "secret", "password"];

impl SyncedSetting {
    /// Why `key` cannot name a synced setting, if it cannot: 1 to 64 of
    /// `A-Z a-z 0-9 . - _`, and no word of a secret (`apiKey`, `token`, …).
    pub fn key_problem(key: &str) -> Option<String> {
        let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_');
        if !(1..=64).contains(&key.len()) || !key.bytes().all(allowed) {
            return Some(format!(
                "`{key}` is not a setting name (1 to 64 of A-Z a-z 0-9 . - _)"
            ));
        }
        let lower = key.to_ascii_lowercase();
        if SECRET_WORDS.iter().any(|word| lower.contains(word)) {
            return Some(format!("`{key}` names a secret, which is never synced"));
        }
        None
    }
}

/// A tool call waiting for a person, and the device whose paused turn made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncedCall {
    /// The conversation of the turn.
    pub conversation_id: String,
    /// The turn that made the call.
    pub turn_id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them (JSON text).
    pub arguments: String,
    /// The device that owns the paused turn: the only one that may run the tool.
    pub owner: String,
}

/// One device's decision on a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "camelCase", deny_unknown_fields)]
pub enum SyncedDecision {
    /// Run it as the model wrote it.
    Approve,
    /// Run it with these arguments (JSON text) instead.
    #[serde(rename_all = "camelCase")]
    Edit {
        /// The arguments to run it with.
        arguments: String,
    },
    /// Do not run it.
    #[serde(rename_all = "camelCase")]
    Reject {
        /// Why, if the person said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}
