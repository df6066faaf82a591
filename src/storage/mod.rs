//! The storage seam: where conversations and messages live.
//!
//! [`MemoryStore`] keeps them in memory (native tests, ephemeral sessions);
//! `web::IndexedDbStore` (`wasm32` only) keeps them in the browser's
//! IndexedDB. Both pass the same conformance suite (`tests/support/conformance/`,
//! run natively and in Chromium).

use futures::future::LocalBoxFuture;

use crate::domain::{
    CallUsage, ContextSummary, OpenTurn, OpenTurnChange, RunRecord, ToolCallRecord, UsageTotals,
};
use crate::domain::{Conversation, Message};
use crate::domain::{Grant, PendingRevision, PendingTurn};
use crate::error::{Error, Result};

mod books;
mod import;
mod memory;
mod memory_books;
mod synced;

pub use books::{BookStore, BookWrite, VECTOR_BATCH};
pub use import::ConversationImport;
pub use memory::MemoryStore;
pub use synced::SyncedMessages;

/// Persistent conversations and messages.
///
/// Each method is one atomic step: after a crash either all of it happened or none.
pub trait Store {
    /// Saves a new conversation. A conversation with the same id is a `Storage` error.
    fn create_conversation<'a>(&'a self, conversation: &'a Conversation) -> LocalBoxFuture<'a, Result<()>>;

    /// The conversation with this id, if any.
    fn conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Conversation>>>;

    /// Replaces a stored conversation's record (title, working state); `NotFound` if it does not exist.
    fn update_conversation<'a>(&'a self, conversation: &'a Conversation) -> LocalBoxFuture<'a, Result<()>>;

    /// All conversations, oldest first.
    fn conversations(&self) -> LocalBoxFuture<'_, Result<Vec<Conversation>>>;

    /// Appends messages to their conversations in one atomic step, assigning
    /// each the next `seq` of its conversation; returns them as stored.
    /// `NotFound` (and nothing written) if a conversation does not exist.
    fn append_messages(&self, messages: Vec<Message>) -> LocalBoxFuture<'_, Result<Vec<Message>>>;

    /// The messages of a conversation in `seq` order; `NotFound` if it does not exist.
    fn messages<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Message>>>;

    /// The newest `limit` messages of a conversation whose `seq` is below
    /// `before_seq` (all of them when `None`), in `seq` order: one bounded
    /// read, whatever the conversation's length. `NotFound` if it does not exist.
    fn recent_messages<'a>(
        &'a self,
        conversation_id: &'a str,
        before_seq: Option<u32>,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Message>>>;

    /// Writes one step of a turn atomically: appends its messages (as
    /// [`Store::append_messages`]), saves its tool-call records and grants, and writes its
    /// paused turn, if any, after [`check_revision`] — a settled one as its
    /// tombstone ([`PendingTurn::pruned`]). On any error nothing is written.
    fn commit(&self, write: TurnWrite) -> LocalBoxFuture<'_, Result<Vec<Message>>>;

    /// Whether a conversation has paused-turn records of any status (a cheap
    /// count, no record read): a turn reads them ([`StoreArchive::pending_turns`])
    /// only when there are some.
    fn has_pending_turns<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<bool>>;

    /// The tool-call records of a conversation, by turn and position; `NotFound` if it does not exist.
    fn tool_calls<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<ToolCallRecord>>>;

    /// Whether a conversation has open-turn records (a count, no record
    /// read): a turn closes those a closed page cut off
    /// ([`StoreArchive::open_turns`]) only when there are some.
    fn has_open_turns<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<bool>>;

    /// Whether any headless run is stored (a count, no record read).
    fn has_runs(&self) -> LocalBoxFuture<'_, Result<bool>>;

    /// Adds one model call's usage to its conversation's totals, read and
    /// written in one transaction; nothing when the conversation is gone.
    fn add_usage<'a>(&'a self, conversation_id: &'a str, call: CallUsage) -> LocalBoxFuture<'a, Result<()>>;

    /// A conversation's usage totals (zeros before its first model call);
    /// `NotFound` if it does not exist.
    fn usage_totals<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<UsageTotals>>;

    /// The summary of a conversation's older messages, if one was made;
    /// `NotFound` if the conversation does not exist.
    fn context_summary<'a>(
        &'a self,
        conversation_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Option<ContextSummary>>>;

    /// Saves (or replaces) a conversation's summary; `NotFound` (nothing
    /// written) if the conversation does not exist.
    fn put_context_summary<'a>(&'a self, summary: &'a ContextSummary) -> LocalBoxFuture<'a, Result<()>>;

    /// Appends a turn's recorded events (`recordEvents`, as the JSON hosts
    /// receive: replay never needs them back as Rust values) after those already
    /// kept for it, in one transaction; `NotFound` (nothing written) if the
    /// conversation does not exist.
    fn append_turn_events<'a>(
        &'a self,
        conversation_id: &'a str,
        turn_id: &'a str,
        events: Vec<serde_json::Value>,
    ) -> LocalBoxFuture<'a, Result<()>>;

    /// The "always allow" grants of a conversation, by tool name; `NotFound` if it does not exist.
    fn grants<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Grant>>>;
}

/// What a first answer and a conversation shown afresh never need: the
/// deletes, an import, recorded events read back, grants cleared, and paused
/// turns, open turns and headless runs read back (read only when
/// [`Store::has_pending_turns`], [`Store::has_open_turns`] or
/// [`Store::has_runs`] count some).
///
/// Apart from [`Store`] so that the page's module holds this code only in the
/// chunks that use it: a trait object's vtable is built where the object is
/// made, and the `dyn Store` is made when Lectern opens. The wasm layer makes
/// the `dyn StoreArchive` in a chunk, handed to the agent or fetched by it on
/// first use ([`crate::agent::Agent::set_archive`], [`crate::agent::ArchiveLoader`]).
pub trait StoreArchive {
    /// Deletes a conversation with all its messages, turn records, grants, summary and recorded events; `NotFound` if it does not exist.
    fn delete_conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>>;

    /// The paused turn with this id, whatever its status.
    fn pending_turn<'a>(&'a self, turn_id: &'a str) -> LocalBoxFuture<'a, Result<Option<PendingTurn>>>;

    /// Paused turns (every status) of one conversation or of all, by turn id
    /// (ids are time-ordered: oldest first).
    fn pending_turns<'a>(
        &'a self,
        conversation_id: Option<&'a str>,
    ) -> LocalBoxFuture<'a, Result<Vec<PendingTurn>>>;

    /// The open-turn records (turns begun and not ended: running, or cut off
    /// by a closed page) of one conversation or of all, by conversation and turn id.
    fn open_turns<'a>(
        &'a self,
        conversation_id: Option<&'a str>,
    ) -> LocalBoxFuture<'a, Result<Vec<OpenTurn>>>;

    /// Every run, by run id (time-ordered: oldest first).
    fn runs(&self) -> LocalBoxFuture<'_, Result<Vec<RunRecord>>>;

    /// Saves (or replaces) a headless run's record.
    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<()>>;

    /// The run with this id, if any.
    fn run<'a>(&'a self, run_id: &'a str) -> LocalBoxFuture<'a, Result<Option<RunRecord>>>;

    /// Deletes every conversation, message, tool-call record, paused turn,
    /// usage total, grant, summary, recorded event and run in one transaction (books stay).
    fn delete_all_conversations(&self) -> LocalBoxFuture<'_, Result<()>>;

    /// The recorded events of a turn, in order (empty when none were recorded).
    fn turn_events<'a>(&'a self, turn_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<serde_json::Value>>>;

    /// The ids of a conversation's turns that have recorded events, oldest
    /// first; `NotFound` if the conversation does not exist.
    fn recorded_turns<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<String>>>;

    /// Deletes every grant of a conversation; `NotFound` if it does not exist.
    fn clear_grants<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<()>>;

    /// Writes a whole conversation in one transaction: its record, messages
    /// (given `seq` 0, 1, 2, ...), tool-call records, paused turns, usage
    /// totals and grants. A taken conversation or turn id, or a record of
    /// another conversation ([`ConversationImport::check_owner`]), is a
    /// `Storage` error (reason `constraint`), and nothing is written.
    fn import_conversation(&self, import: ConversationImport) -> LocalBoxFuture<'_, Result<()>>;

    /// Makes a conversation's messages exactly `synced.messages`, in that
    /// order (given `seq` 0, 1, 2, ...), and its record `synced.conversation`
    /// (created when it is not stored), in one transaction; its other records
    /// stay. A message of another conversation, an id given twice or taken by
    /// another conversation's message is a `Storage` error (reason
    /// `constraint`), and nothing is written.
    fn put_synced_messages(&self, synced: SyncedMessages) -> LocalBoxFuture<'_, Result<()>>;
}

/// One step of a turn, written by [`Store::commit`] in one transaction.
#[derive(Debug, Clone, Default)]
pub struct TurnWrite {
    /// Messages to append.
    pub messages: Vec<Message>,
    /// Tool-call records to save (replacing any with the same turn and position).
    pub tool_calls: Vec<ToolCallRecord>,
    /// The paused turn to write.
    pub pending: Option<PendingTurn>,
    /// "Always allow" grants to save (replacing any for the same conversation and tool).
    pub grants: Vec<Grant>,
    /// The turn's open-turn record to write or delete (what `resumeTurn` needs).
    pub open_turn: Option<OpenTurnChange>,
}

/// Whether `next` may replace `stored`: a new paused turn (revision 0) must
/// not exist yet, a later one must follow the stored revision. Otherwise
/// another writer got there first: `AlreadyResolved` with the stored status.
pub fn check_revision(stored: Option<PendingRevision>, next: &PendingTurn) -> Result<()> {
    let fits = match stored {
        None => next.revision == 0,
        Some(stored) => stored.revision + 1 == next.revision,
    };
    if fits {
        return Ok(());
    }
    Err(Error::AlreadyResolved {
        turn_id: next.turn_id.clone(),
        state: stored.map_or("unknown", |s| s.status.as_str()).to_owned(),
    })
}
