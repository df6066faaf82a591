//! The agent: conversations, tools, and the turn that calls the model, runs
//! the tools it asks for and persists every step.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use crate::approval::ApprovalConfig;
use crate::domain::{Conversation, Message, NewConversation};
use crate::error::{Error, Result};
use crate::provider::Model;
use crate::retrieval::reader::book_access::BookAccess;
use crate::runtime::ids::new_id;
use crate::runtime::time::Clock;
use crate::storage::{Store, StoreArchive};
use crate::tool::builtin::SearchBookTool;
use crate::tool::{Tool, ToolCache, ToolRegistry};

mod active_turns;
mod approvals;
mod budget;
mod calibration;
mod compress;
mod config;
mod config_report;
mod context;
mod context_room;
mod decided;
mod egress;
mod friendly;
mod grants;
mod headless;
mod locks;
mod mentions;
mod one_shot;
mod open_options;
mod option_rules;
mod portability;
pub mod prompts;
mod replay;
mod result;
mod resume;
mod retry;
mod review;
mod send;
mod sources;
mod step;
mod summary_call;
mod synced;
mod system_prompt;
mod turn;
mod usage_estimate;

pub use crate::domain::{
    Budget, RunError, RunRecord, RunStatus, ToolCallRecord, TurnOverrides, TurnState, TurnUsage,
};
pub use crate::retrieval::config::RetrievalStrategy;
pub use approvals::MOVED_ON;
pub use calibration::Calibration;
pub use config::{AgentConfig, ModelProfile, Persona, QuoteAnswers, RunLimits, ToolShell};
pub use config_report::{book_context_warning, validate_config, ConfigReport};
pub use context::{estimate_tokens, history_window, read_window, ContextStrategy, DEFAULT_KEEP_RECENT};
pub use decided::REJECTED;
pub use friendly::friendly_message;
pub use headless::{HeadlessRequest, DEFAULT_RUN_TIMEOUT_MS};
pub use locks::{MemoryLocks, TurnGuard, TurnLocks};
pub use mentions::MentionResolver;
pub use open_options::{HostFunctions, OpenOptions};
pub use option_rules::broken_rules;
pub use portability::{
    ConversationExport, ExportFormat, ExportOptions, LecternBundle, BUNDLE_VERSION, MAX_IMPORT_RECORDS,
};
pub use result::{TurnError, TurnResult, TurnStatus};
pub use resume::INTERRUPTED_BY_CLOSE;
pub use send::SendOptions;
pub use system_prompt::{iso_date, system_message, SystemInputs};
pub use usage_estimate::{estimated_usage, usage_or_estimate};

/// Runs conversations against one model and one store.
pub struct Agent {
    store: Rc<dyn Store>,
    model: Rc<dyn Model>,
    clock: Rc<dyn Clock>,
    config: AgentConfig,
    tools: ToolRegistry,
    /// Shared with the one-shot turns' agents ([`Agent::ask_once`]).
    cache: Rc<ToolCache>,
    locks: Rc<dyn TurnLocks>,
    mentions: Option<Rc<dyn MentionResolver>>,
    active: active_turns::ActiveTurns,
    library: Option<Rc<dyn BookAccess>>,
    /// The approval configuration in force: the configuration's, until `set_approvals`.
    approvals: RefCell<Rc<ApprovalConfig>>,
    /// The model's real input tokens against Lectern's estimate, as learnt so far.
    calibration: calibration::Calibration,
    /// The store's archive operations, once handed over ([`Agent::set_archive`]) or loaded.
    archive: RefCell<Option<Rc<dyn StoreArchive>>>,
    /// Where the archive operations come from when none were handed over.
    archive_loader: Option<ArchiveLoader>,
}

/// Fetches the store's archive operations ([`StoreArchive`]) the first time an
/// agent needs them and none were handed over: in the package, from a chunk
/// of the page's module, so that their code is not in it (`wasm::page::lectern`).
pub type ArchiveLoader = Rc<dyn Fn() -> LocalBoxFuture<'static, Result<Rc<dyn StoreArchive>>>>;

impl Agent {
    /// An agent over these seams, with no tools yet.
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
            approvals: RefCell::new(Rc::new(config.approvals.clone())),
            config,
            tools: ToolRegistry::new(),
            cache: Rc::new(ToolCache::new()),
            locks: Rc::new(MemoryLocks::new()),
            mentions: None,
            library: None,
            active: active_turns::ActiveTurns::default(),
            calibration: calibration::Calibration::default(),
            archive: RefCell::new(None),
            archive_loader: None,
        }
    }

    /// Gives book conversations their books, and registers `search_book`.
    pub fn with_library(mut self, library: Rc<dyn BookAccess>) -> Result<Self> {
        self.tools.register(Rc::new(
            SearchBookTool::new(library.clone()).with_budget(self.config.max_context_tokens),
        ))?;
        self.library = Some(library);
        Ok(self)
    }

    /// The books, if enabled.
    pub fn library(&self) -> Option<&Rc<dyn BookAccess>> {
        self.library.as_ref()
    }

    /// Serialises turns with `locks` instead of a lock of its own: agents that
    /// share them (on one store) never run turns on one conversation at once.
    pub fn with_turn_locks(mut self, locks: Rc<dyn TurnLocks>) -> Self {
        self.locks = locks;
        self
    }

    /// Resolves `send`'s mentions with `resolver`.
    pub fn with_mention_resolver(mut self, resolver: Rc<dyn MentionResolver>) -> Self {
        self.mentions = Some(resolver);
        self
    }

    /// The store the agent writes to.
    pub fn store(&self) -> &Rc<dyn Store> {
        &self.store
    }

    /// Hands over the archive operations of the agent's store (the same store
    /// as another trait object: see [`StoreArchive`] for why they are apart).
    /// The deletes, import, replay, headless runs and `reset_approvals` need it.
    pub fn set_archive(&self, archive: Rc<dyn StoreArchive>) {
        *self.archive.borrow_mut() = Some(archive);
    }

    /// Loads the archive operations with `loader` when they are first needed
    /// and were not handed over.
    pub fn with_archive_loader(mut self, loader: ArchiveLoader) -> Self {
        self.archive_loader = Some(loader);
        self
    }

    /// The archive operations: handed over, or loaded now (once); an
    /// `Internal` error if there are neither.
    pub async fn archive(&self) -> Result<Rc<dyn StoreArchive>> {
        let handed = self.archive.borrow().clone();
        if let Some(archive) = handed {
            return Ok(archive);
        }
        let Some(load) = self.archive_loader.clone() else {
            return Err(Error::Internal {
                panic: "the store's archive operations were not handed to the agent (Agent::set_archive)"
                    .into(),
            });
        };
        let archive = load().await?;
        self.set_archive(archive.clone());
        Ok(archive)
    }

    /// The configuration.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The approval configuration in force (the configuration's, or the last `set_approvals`).
    pub fn approvals(&self) -> Rc<ApprovalConfig> {
        self.approvals.borrow().clone()
    }

    /// Replaces the approval configuration from the next tool step on, even
    /// in a running turn (per agent, not stored).
    pub fn set_approvals(&self, approvals: ApprovalConfig) {
        *self.approvals.borrow_mut() = Rc::new(approvals);
    }

    /// Turns auto-approval (every `ask` approved, `deny` still refused) on or
    /// off, the rest of the approval configuration kept, from the next tool
    /// step on (per agent, not stored).
    pub fn set_auto_approve(&self, on: bool) {
        let mut approvals = (*self.approvals()).clone();
        approvals.auto_approve = on;
        self.set_approvals(approvals);
    }

    /// The registered tools.
    pub fn tools(&self) -> &ToolRegistry {
        &self.tools
    }

    /// Registers (or replaces) a tool.
    pub fn register_tool(&self, tool: Rc<dyn Tool>) -> Result<()> {
        self.tools.register(tool)
    }

    /// Forgets cached results of one tool, or of all.
    pub fn clear_tool_cache(&self, tool: Option<&str>) {
        self.cache.clear(tool);
    }

    /// Forgets the cached results of `tool` for one argument set (for every
    /// user and conversation): what a host calls when the data behind those
    /// arguments changed. Returns how many results it forgot.
    pub fn forget_tool_result(&self, tool: &str, arguments: &serde_json::Value) -> usize {
        self.cache.forget(tool, arguments)
    }

    /// Creates and persists a conversation.
    pub async fn create_conversation(&self, new: NewConversation) -> Result<Conversation> {
        let title = new.title.unwrap_or_else(|| "New conversation".to_owned());
        if title.chars().count() > 500 {
            return Err(Error::config("conversation title must be at most 500 characters"));
        }
        if let Some(book_id) = &new.book_id {
            let library = self
                .library
                .as_ref()
                .ok_or_else(|| Error::config("bookId needs books to be enabled"))?;
            library.book(book_id).await?;
        }
        let now = self.clock.now_ms();
        let conversation = Conversation {
            id: new_id(now),
            title,
            created_at: now,
            book_id: new.book_id,
            working_state: None,
        };
        self.store.create_conversation(&conversation).await?;
        Ok(conversation)
    }

    /// Every conversation, oldest first.
    pub async fn conversations(&self) -> Result<Vec<Conversation>> {
        self.store.conversations().await
    }

    /// The messages of a conversation, in order (reasoning only with `showThinking`); `NotFound` if it does not exist.
    pub async fn messages(&self, conversation_id: &str) -> Result<Vec<Message>> {
        let mut messages = self.store.messages(conversation_id).await?;
        if !self.config.show_thinking {
            messages.iter_mut().for_each(|m| m.reasoning.clear());
        }
        Ok(messages)
    }

    /// Replaces a conversation's working state (`null` clears it); shown to the model at every call.
    pub async fn set_working_state(&self, conversation_id: &str, state: Value) -> Result<()> {
        if !(state.is_object() || state.is_null()) {
            return Err(Error::config("the working state must be a JSON object (or null)"));
        }
        let mut conversation = self
            .store
            .conversation(conversation_id)
            .await?
            .ok_or_else(|| Error::not_found("conversation", conversation_id))?;
        conversation.working_state = Some(state).filter(|s| !s.is_null());
        self.store.update_conversation(&conversation).await
    }

    /// A conversation's working state, if it has one.
    pub async fn working_state(&self, conversation_id: &str) -> Result<Option<Value>> {
        let conversation = self
            .store
            .conversation(conversation_id)
            .await?
            .ok_or_else(|| Error::not_found("conversation", conversation_id))?;
        Ok(conversation.working_state)
    }

    /// Deletes every conversation with its messages, tool-call records,
    /// paused turns and usage totals, and every headless run, in one
    /// transaction; books stay. `ConversationBusy` while this agent runs a
    /// turn (nothing is deleted); a turn of another tab then fails `NotFound`.
    pub async fn delete_all_conversations(&self) -> Result<()> {
        if let Some(conversation_id) = self.active.any() {
            return Err(Error::ConversationBusy {
                conversation_id,
                waited_ms: 0,
            });
        }
        self.archive().await?.delete_all_conversations().await?;
        self.cache.clear(None);
        Ok(())
    }

    /// A conversation's usage over every model call of every turn (failed,
    /// aborted and paused ones included); `NotFound` if it does not exist.
    pub async fn usage(&self, conversation_id: &str) -> Result<crate::domain::UsageTotals> {
        self.store.usage_totals(conversation_id).await
    }
}
