//! Choosing which stored messages the model sees.

use crate::domain::{Message, Role};

/// The newest `max_messages` of `history`, never starting with a tool result
/// whose assistant call was cut off.
pub fn history_window(history: &[Message], max_messages: usize) -> &[Message] {
    let mut start = history.len().saturating_sub(max_messages);
    while start < history.len() && history[start].role == Role::ToolResult {
        start += 1;
    }
    &history[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: Role) -> Message {
        Message::new(String::new(), "c", role, "", 0.0)
    }

    #[test]
    fn keeps_the_newest_messages() {
        let history = [msg(Role::User), msg(Role::Assistant), msg(Role::User)];
        assert_eq!(history_window(&history, 2).len(), 2);
        assert_eq!(history_window(&history, 10).len(), 3);
    }

    #[test]
    fn never_starts_with_an_orphaned_tool_result() {
        let history = [
            msg(Role::User),
            msg(Role::Assistant),
            msg(Role::ToolResult),
            msg(Role::ToolResult),
            msg(Role::Assistant),
        ];
        let window = history_window(&history, 3);
        assert_eq!(window.len(), 1);
        assert_eq!(window[0].role, Role::Assistant);
    }
}
