//! Reading a `lectern` bundle: its version, then each record in its stored
//! shape, then how they hold together.

use serde_json::{Map, Value};

use super::checks::{check_grants, check_messages, check_owner, check_pending, check_records, LECTERN};
use super::fields::{check_title, only_known, record, records};
use super::BUNDLE_VERSION;
use crate::domain::{Conversation, Message, UsageTotals};
use crate::error::{Error, Result};
use crate::storage::ConversationImport;

/// The fields of a bundle.
const FIELDS: [&str; 8] = [
    "format",
    "version",
    "conversation",
    "messages",
    "toolCalls",
    "pendingTurns",
    "usage",
    "grants",
];

/// The conversation a `lectern` bundle holds (still under its own ids), checked whole.
pub(super) fn from_bundle(mut object: Map<String, Value>) -> Result<ConversationImport> {
    only_known(&object, &FIELDS, "")?;
    match object.get("version") {
        Some(version) if version.as_u64() == Some(u64::from(BUNDLE_VERSION)) => {}
        Some(version) => {
            let why = format!("version {version} is not one this Lectern reads ({BUNDLE_VERSION})");
            return Err(Error::import("version", why));
        }
        None => return Err(Error::import("version", "missing")),
    }
    let conversation = match object.remove("conversation") {
        Some(value) => conversation(value)?,
        None => return Err(Error::import("conversation", "missing")),
    };
    let id = conversation.id.clone();
    let messages: Vec<Message> = records(&mut object, "messages", true)?;
    for (i, message) in messages.iter().enumerate() {
        check_owner(&message.conversation_id, &id, &format!("messages[{i}]"))?;
        if message.seq as usize != i {
            let why = format!(
                "seq {} where {i} comes next: seqs run 0, 1, 2, ... with no gap",
                message.seq
            );
            return Err(Error::import(format!("messages[{i}].seq"), why));
        }
    }
    check_messages(&messages, &LECTERN)?;
    let tool_calls = records(&mut object, "toolCalls", false)?;
    check_records(&tool_calls, &id)?;
    let pending_turns = records(&mut object, "pendingTurns", false)?;
    check_pending(&pending_turns, &id)?;
    let usage: UsageTotals = match object.remove("usage") {
        Some(value) => record(value, "usage")?,
        None => UsageTotals::empty(&id),
    };
    check_owner(&usage.conversation_id, &id, "usage")?;
    let grants = records(&mut object, "grants", false)?;
    check_grants(&grants, &id)?;
    Ok(ConversationImport {
        conversation,
        messages,
        tool_calls,
        pending_turns,
        usage,
        grants,
    })
}

/// The conversation's record: a title `createConversation` would take, a working state that is an object.
fn conversation(value: Value) -> Result<Conversation> {
    let conversation: Conversation = record(value, "conversation")?;
    check_title(&conversation.title, "conversation.title")?;
    if conversation
        .working_state
        .as_ref()
        .is_some_and(|state| !state.is_object())
    {
        return Err(Error::import(
            "conversation.workingState",
            "the working state must be a JSON object",
        ));
    }
    Ok(conversation)
}
