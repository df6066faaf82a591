//! The agent: conversations, and the turn that calls the model and persists every step.

use std::rc::Rc;

use crate::domain::{Conversation, Message, NewConversation};
use crate::error::{Error, Result};
use crate::ids::new_id;
use crate::provider::{Model, PriceTable};
use crate::storage::Store;
use crate::time::Clock;

mod context;
pub mod prompts;
mod result;
mod turn;

pub use context::history_window;
pub use result::{ToolCallRecord, TurnError, TurnResult, TurnUsage};
pub use turn::SendOptions;

/// Limits and prompt for the agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    /// The system prompt sent first in every model call.
    pub system_prompt: String,
    /// The most history messages sent to the model.
    pub max_history_messages: usize,
    /// The most model calls in one turn.
    pub max_iterations: u32,
    /// Prices for the `costUsd` of usage.
    pub prices: PriceTable,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            system_prompt: prompts::CONVERSATION_SYSTEM_PROMPT.to_owned(),
            max_history_messages: 50,
            max_iterations: 10,
            prices: PriceTable::default(),
        }
    }
}

/// Runs conversations against one model and one store.
pub struct Agent {
    store: Rc<dyn Store>,
    model: Rc<dyn Model>,
    clock: Rc<dyn Clock>,
    config: AgentConfig,
}

impl Agent {
    /// An agent over these seams.
    pub fn new(
        store: Rc<dyn Store>,
        model: Rc<dyn Model>,
        clock: Rc<dyn Clock>,
        config: AgentConfig,
    ) -> Self {
        Agent {
            store,
            model,
            clock,
            config,
        }
    }

    /// The store the agent writes to.
    pub fn store(&self) -> &Rc<dyn Store> {
        &self.store
    }

    /// Creates and persists a conversation.
    pub async fn create_conversation(&self, new: NewConversation) -> Result<Conversation> {
        let title = new.title.unwrap_or_else(|| "New conversation".to_owned());
        if title.chars().count() > 500 {
            return Err(Error::config("conversation title must be at most 500 characters"));
        }
        let now = self.clock.now_ms();
        let conversation = Conversation {
            id: new_id(now),
            title,
            created_at: now,
        };
        self.store.create_conversation(&conversation).await?;
        Ok(conversation)
    }

    /// Every conversation, oldest first.
    pub async fn conversations(&self) -> Result<Vec<Conversation>> {
        self.store.conversations().await
    }

    /// The messages of a conversation, in order; `NotFound` if it does not exist.
    pub async fn messages(&self, conversation_id: &str) -> Result<Vec<Message>> {
        self.store.messages(conversation_id).await
    }
}
