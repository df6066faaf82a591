//! The records Lectern keeps and exchanges: conversations, messages, tool
//! calls and their records, usage, paused turns and headless runs, and
//! books with their pages, chunks and stored vectors.
//!
//! Everything here serialises camelCase, the shape JS sees. Storage, tools
//! and retrieval share these records with the agent without depending on it.

mod book;
mod budget;
mod chunk;
mod context_summary;
mod conversation;
mod egress;
mod grant;
mod mention;
mod message;
mod open_turn;
mod page;
mod paused_turn;
mod reasoning;
mod response_format;
mod run;
mod sort;
mod sorted_map;
mod source;
mod stored_vectors;
mod tokens;
mod tool;
mod tool_record;
mod turn_state;
mod usage;
mod usage_totals;

pub use book::{is_book_id, Book, NO_EMBEDDER};
pub use budget::Budget;
pub use chunk::Chunk;
pub use context_summary::ContextSummary;
pub use conversation::{Conversation, NewConversation};
pub use egress::{EgressEntry, EgressPurpose, Endpoint, PassageRef, ToolRequest, ToolResultRef};
pub use grant::Grant;
pub use mention::Mention;
pub use message::{Message, Role};
pub use open_turn::{InterruptedCall, InterruptedTurn, OpenStepRecord, OpenTurn, OpenTurnChange};
pub use page::Page;
pub use paused_turn::{
    ClaimedCall, PausedStep, PendingApproval, PendingCall, PendingRevision, PendingStatus, PendingTurn,
    SettledCall,
};
pub use reasoning::{reasoning_text, ReasoningBlock};
pub use response_format::{ResponseFormat, DEFAULT_RESPONSE_NAME, RESPONSE_TOOL};
pub use run::{ReviewDecision, RunError, RunRecord, RunReview, RunStatus};
pub use sort::sort_by;
pub use sorted_map::SortedMap;
pub use source::{distinct_sources, QuoteReason, Quoted, SentenceCheck, Source, SourceCheck, SourceVia};
pub use stored_vectors::StoredVectors;
pub use tokens::{estimate_tokens, tool_definitions_tokens};
pub use tool::{ToolCall, ToolDefinition};
pub use tool_record::{Decision, ToolCallRecord};
pub use turn_state::{ApprovalOverrides, OnNewMessage, TurnOverrides, TurnState};
pub use usage::{TurnUsage, Usage};
pub use usage_totals::{CallUsage, UsageTotals};
