//! One-shot turns: one turn with the agent loop, the tools and the limits
//! that stores nothing (the design's turn without a conversation).
//!
//! The turn runs on an agent of its own over an in-memory store that is
//! dropped when the turn ends: the same model, configuration, tools, tool
//! cache, books and approval policies, so it behaves as a `send` would on a
//! new conversation, and nothing it does reaches the instance's database.
//! Nobody can answer an approval and nothing is kept to resume, so a call
//! that would ask is refused, and the model reads why.

use std::cell::RefCell;
use std::rc::Rc;

use super::{active_turns::ActiveTurns, calibration::Calibration};
use super::{Agent, MemoryLocks, SendOptions, TurnError, TurnResult};
use crate::domain::NewConversation;
use crate::events::EventSink;
use crate::storage::MemoryStore;

/// The title of a one-shot turn's conversation (`{{conversation_title}}` in its prompt).
pub const ONE_SHOT_TITLE: &str = "One-shot turn";

impl Agent {
    /// Runs one turn for `text` and stores nothing: no conversation, message,
    /// tool-call record, usage total or paused turn is written. With
    /// `book_id`, the turn is a book conversation's (its reader's page, its
    /// passages, `search_book`). A call whose policy is `ask` is refused
    /// unless the turn auto-approves (`options`' approvals), since nobody can
    /// answer it. The result carries the turn's messages, which nothing else keeps.
    pub async fn ask_once(
        &self,
        text: &str,
        book_id: Option<String>,
        options: &SendOptions,
        events: &EventSink,
    ) -> Result<TurnResult, TurnError> {
        let agent = self.unstored();
        let new = NewConversation {
            title: Some(ONE_SHOT_TITLE.to_owned()),
            book_id,
        };
        let conversation = agent.create_conversation(new).await?;
        let mut options = options.clone();
        options.overrides.refuse_asks = true;
        let mut result = agent.send(&conversation.id, text, &options, events).await?;
        result.messages = agent.store.messages(&conversation.id).await?;
        Ok(result)
    }

    /// An agent like this one over a new in-memory store: what it stores is
    /// dropped with it. Tools are those registered now; the tool cache is shared.
    fn unstored(&self) -> Agent {
        let store = Rc::new(MemoryStore::new());
        Agent {
            store: store.clone(),
            model: self.model.clone(),
            clock: self.clock.clone(),
            config: self.config.clone(),
            tools: self.tools.snapshot(),
            cache: self.cache.clone(),
            locks: Rc::new(MemoryLocks::new()),
            mentions: self.mentions.clone(),
            active: ActiveTurns::default(),
            library: self.library.clone(),
            approvals: RefCell::new(self.approvals()),
            calibration: Calibration::default(),
            archive: RefCell::new(Some(store)),
            archive_loader: None,
        }
    }
}
