//! Reading an OpenAI chat-completions `messages` array: the inverse of the
//! provider's `message_json`, plus content arrays of text parts. Fields the
//! chat format has and Lectern does not keep (`name`, `refusal`, ...) are
//! passed over.

use serde_json::{Map, Value};

use super::checks::{check_messages, OPENAI};
use super::fields::{check_title, items, only_known, path, required_string, string};
use crate::domain::{Conversation, Message, Role, ToolCall, UsageTotals};
use crate::error::{Error, Result};
use crate::storage::ConversationImport;

/// The title of a conversation imported without one.
const DEFAULT_TITLE: &str = "Imported conversation";

/// The id the conversation goes by until it gets its new one.
const PLACEHOLDER_ID: &str = "import";

/// `{ format: 'openai', messages, title? }`.
pub(super) fn from_object(mut object: Map<String, Value>, now: f64) -> Result<ConversationImport> {
    only_known(&object, &["format", "messages", "title"], "")?;
    let title = string(&object, "title", "", false)?;
    let messages = items(&mut object, "messages", true)?;
    from_items(messages, title, now)
}

/// A bare `messages` array.
pub(super) fn from_messages(
    messages: Vec<Value>,
    title: Option<String>,
    now: f64,
) -> Result<ConversationImport> {
    let mut object = Map::new();
    object.insert("messages".to_owned(), Value::Array(messages));
    from_items(items(&mut object, "messages", true)?, title, now)
}

fn from_items(items: Vec<(Value, String)>, title: Option<String>, now: f64) -> Result<ConversationImport> {
    let title = title.unwrap_or_else(|| DEFAULT_TITLE.to_owned());
    check_title(&title, "title")?;
    let messages = items
        .into_iter()
        .map(|(item, at)| message(item, &at, now))
        .collect::<Result<Vec<_>>>()?;
    check_messages(&messages, &OPENAI)?;
    Ok(ConversationImport {
        conversation: Conversation {
            id: PLACEHOLDER_ID.to_owned(),
            title,
            created_at: now,
            book_id: None,
            working_state: None,
        },
        messages,
        tool_calls: Vec::new(),
        pending_turns: Vec::new(),
        usage: UsageTotals::empty(PLACEHOLDER_ID),
        grants: Vec::new(),
    })
}

/// One chat message as a Lectern message (its ids come later).
fn message(value: Value, at: &str, now: f64) -> Result<Message> {
    let Value::Object(object) = value else {
        return Err(Error::import(at, "a message must be an object"));
    };
    let role = match required_string(&object, "role", at)?.as_str() {
        "system" | "developer" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::ToolResult,
        other => {
            let why = format!("unknown role {other:?} (expected system, developer, user, assistant or tool)");
            return Err(Error::import(path(at, "role"), why));
        }
    };
    let tool_calls = match object.get("tool_calls") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(calls)) => calls
            .iter()
            .enumerate()
            .map(|(k, call)| tool_call(call, &format!("{at}.tool_calls[{k}]")))
            .collect::<Result<_>>()?,
        Some(_) => return Err(Error::import(path(at, "tool_calls"), "must be an array")),
    };
    // An assistant message that only calls tools may have no content.
    let may_be_empty = role == Role::Assistant && !tool_calls.is_empty();
    let content = content(object.get("content"), &path(at, "content"), may_be_empty)?;
    let mut message = Message::new(String::new(), PLACEHOLDER_ID, role, content, now);
    message.tool_calls = tool_calls;
    message.tool_call_id = string(&object, "tool_call_id", at, false)?;
    Ok(message)
}

/// A message's text: a string, or an array of text parts (joined by line breaks).
fn content(value: Option<&Value>, at: &str, may_be_empty: bool) -> Result<String> {
    match value {
        Some(Value::String(text)) => Ok(text.clone()),
        None | Some(Value::Null) if may_be_empty => Ok(String::new()),
        Some(Value::Array(parts)) => {
            let texts = parts
                .iter()
                .enumerate()
                .map(|(k, part)| text_part(part, &format!("{at}[{k}]")))
                .collect::<Result<Vec<_>>>()?;
            Ok(texts.join("\n"))
        }
        _ => Err(Error::import(at, "must be a string or an array of text parts")),
    }
}

/// `{ type: 'text', text }`: the only part Lectern keeps.
fn text_part(part: &Value, at: &str) -> Result<String> {
    let Value::Object(part) = part else {
        return Err(Error::import(at, "a content part must be an object"));
    };
    let kind = required_string(part, "type", at)?;
    if kind != "text" {
        let why = format!("only text parts can be imported (this one is {kind:?})");
        return Err(Error::import(path(at, "type"), why));
    }
    required_string(part, "text", at)
}

/// `{ id, type: 'function', function: { name, arguments } }`.
fn tool_call(call: &Value, at: &str) -> Result<ToolCall> {
    let Value::Object(call) = call else {
        return Err(Error::import(at, "a tool call must be an object"));
    };
    if let Some(kind) = string(call, "type", at, false)?.filter(|kind| kind != "function") {
        let why = format!("only function calls can be imported (this one is {kind:?})");
        return Err(Error::import(path(at, "type"), why));
    }
    let function_at = path(at, "function");
    let Some(Value::Object(function)) = call.get("function") else {
        return Err(Error::import(
            function_at,
            "must be an object with name and arguments",
        ));
    };
    Ok(ToolCall {
        id: required_string(call, "id", at)?,
        name: required_string(function, "name", &function_at)?,
        arguments: required_string(function, "arguments", &function_at)?,
    })
}
