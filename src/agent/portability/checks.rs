//! What an imported conversation must hold to: messages whose calls are all
//! answered, in order, by the results that follow them; at most one open
//! paused turn whose calls add up; records that are not doubled.

use std::collections::HashSet;

use super::fields::check_size;
use crate::approval::PendingTurn;
use crate::domain::{Grant, Message, Role, ToolCallRecord};
use crate::error::{Error, Result};

/// How the input names a message's fields: Lectern's camelCase, or OpenAI's.
pub(super) struct Names {
    /// An assistant message's calls.
    pub tool_calls: &'static str,
    /// A tool result's call id.
    pub tool_call_id: &'static str,
    /// A call's name, within the call.
    pub call_name: &'static str,
    /// A call's arguments, within the call.
    pub call_arguments: &'static str,
}

/// Lectern's names.
pub(super) const LECTERN: Names = Names {
    tool_calls: "toolCalls",
    tool_call_id: "toolCallId",
    call_name: "name",
    call_arguments: "arguments",
};

/// The chat-completions names.
pub(super) const OPENAI: Names = Names {
    tool_calls: "tool_calls",
    tool_call_id: "tool_call_id",
    call_name: "function.name",
    call_arguments: "function.arguments",
};

/// Sizes, roles, and calls: each call of an assistant message is answered by
/// one of the tool results right after it, and every tool result answers one.
pub(super) fn check_messages(messages: &[Message], names: &Names) -> Result<()> {
    // The calls waiting for their results, with where each was made.
    let mut open: Vec<(String, String)> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let at = format!("messages[{i}]");
        check_size(&message.content, &format!("{at}.content"))?;
        let id_at = format!("{at}.{}", names.tool_call_id);
        if message.role == Role::ToolResult {
            let id = message
                .tool_call_id
                .as_deref()
                .ok_or_else(|| Error::import(&id_at, "a tool result needs the id of the call it answers"))?;
            let Some(answered) = open.iter().position(|(call, _)| call == id) else {
                return Err(Error::import(
                    id_at,
                    format!("{id} answers no call of the assistant message before it"),
                ));
            };
            open.remove(answered);
        } else {
            unanswered(&open)?;
            if message.tool_call_id.is_some() {
                return Err(Error::import(id_at, "only a tool result answers a call"));
            }
        }
        if !message.tool_calls.is_empty() && message.role != Role::Assistant {
            let at = format!("{at}.{}", names.tool_calls);
            return Err(Error::import(at, "only an assistant message makes tool calls"));
        }
        for (k, call) in message.tool_calls.iter().enumerate() {
            let at = format!("{at}.{}[{k}]", names.tool_calls);
            if call.id.is_empty() || open.iter().any(|(id, _)| *id == call.id) {
                let why = format!(
                    "a call needs an id of its own in its message (found {:?})",
                    call.id
                );
                return Err(Error::import(format!("{at}.id"), why));
            }
            if call.name.is_empty() {
                return Err(Error::import(
                    format!("{at}.{}", names.call_name),
                    "a call needs its tool's name",
                ));
            }
            check_size(&call.arguments, &format!("{at}.{}", names.call_arguments))?;
            open.push((call.id.clone(), at));
        }
    }
    unanswered(&open)
}

/// A call still waiting when no more results come: never answered.
fn unanswered(open: &[(String, String)]) -> Result<()> {
    match open.first() {
        Some((id, at)) => Err(Error::import(
            at,
            format!("call {id} is never answered: its tool result must follow its assistant message"),
        )),
        None => Ok(()),
    }
}

/// Every record belongs to the conversation `id`.
pub(super) fn check_owner(owner: &str, id: &str, at: &str) -> Result<()> {
    if owner == id {
        return Ok(());
    }
    Err(Error::import(
        format!("{at}.conversationId"),
        format!("belongs to conversation {owner}, not {id}"),
    ))
}

/// Records of one conversation: one per turn and position.
pub(super) fn check_records(records: &[ToolCallRecord], id: &str) -> Result<()> {
    let mut seen = HashSet::new();
    for (i, record) in records.iter().enumerate() {
        check_owner(&record.conversation_id, id, &format!("toolCalls[{i}]"))?;
        if !seen.insert((record.turn_id.as_str(), record.position)) {
            return Err(Error::import(
                format!("toolCalls[{i}].position"),
                format!(
                    "a second record for position {} of turn {}",
                    record.position, record.turn_id
                ),
            ));
        }
    }
    Ok(())
}

/// Grants of one conversation: one per tool.
pub(super) fn check_grants(grants: &[Grant], id: &str) -> Result<()> {
    let mut seen = HashSet::new();
    for (i, grant) in grants.iter().enumerate() {
        check_owner(&grant.conversation_id, id, &format!("grants[{i}]"))?;
        if !seen.insert(grant.tool_name.as_str()) {
            return Err(Error::import(
                format!("grants[{i}].toolName"),
                "a second grant for this tool",
            ));
        }
    }
    Ok(())
}

/// At most one paused turn, open, of this conversation, whose calls add up:
/// each call of its step is settled, running, or waiting for a decision.
pub(super) fn check_pending(turns: &[PendingTurn], id: &str) -> Result<()> {
    if turns.len() > 1 {
        return Err(Error::import(
            "pendingTurns[1]",
            "a conversation has at most one open paused turn",
        ));
    }
    let Some(turn) = turns.first() else {
        return Ok(());
    };
    let at = "pendingTurns[0]";
    check_owner(&turn.conversation_id, id, at)?;
    if !turn.status.is_open() {
        let why = format!(
            "only an open paused turn is imported (this one is {})",
            turn.status.as_str()
        );
        return Err(Error::import(format!("{at}.status"), why));
    }
    if turn.calls.is_empty() {
        return Err(Error::import(
            format!("{at}.calls"),
            "an open paused turn waits for at least one call",
        ));
    }
    let step = &turn.step;
    check_size(&step.text, &format!("{at}.step.text"))?;
    let mut calls = HashSet::new();
    for (k, call) in step.calls.iter().enumerate() {
        check_size(&call.arguments, &format!("{at}.step.calls[{k}].arguments"))?;
        if !calls.insert(call.id.as_str()) {
            return Err(Error::import(
                format!("{at}.step.calls[{k}].id"),
                "a second call with this id",
            ));
        }
    }
    let known = |call_id: &str, where_: String| match calls.contains(call_id) {
        true => Ok(()),
        false => Err(Error::import(
            where_,
            format!("{call_id} is no call of the paused step"),
        )),
    };
    let waiting = turn.calls.iter().map(|c| c.call_id.as_str());
    let settled = step.settled.iter().map(|c| c.call_id.as_str());
    let running = step.running.iter().map(|c| c.call_id.as_str());
    for (j, call_id) in waiting.clone().enumerate() {
        known(call_id, format!("{at}.calls[{j}].callId"))?;
    }
    for (j, settled) in step.settled.iter().enumerate() {
        known(&settled.call_id, format!("{at}.step.settled[{j}].callId"))?;
        check_size(&settled.content, &format!("{at}.step.settled[{j}].content"))?;
    }
    for (j, call_id) in running.clone().enumerate() {
        known(call_id, format!("{at}.step.running[{j}].callId"))?;
    }
    let accounted: HashSet<&str> = waiting.chain(settled).chain(running).collect();
    if let Some(k) = step.calls.iter().position(|c| !accounted.contains(c.id.as_str())) {
        return Err(Error::import(
            format!("{at}.step.calls[{k}]"),
            "this call is neither settled nor waiting for a decision",
        ));
    }
    for (k, record) in step.state.records.iter().enumerate() {
        check_owner(
            &record.conversation_id,
            id,
            &format!("{at}.step.state.records[{k}]"),
        )?;
    }
    Ok(())
}
