//! The records Lectern keeps and exchanges: conversations, messages, tool calls, usage.
//!
//! Everything here serialises camelCase, the shape JS sees.

mod conversation;
mod mention;
mod message;
mod tool;
mod usage;

pub use conversation::{Conversation, NewConversation};
pub use mention::Mention;
pub use message::{Message, Role};
pub use tool::{ToolCall, ToolDefinition};
pub use usage::Usage;
