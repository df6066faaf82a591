//! [`TestAgent`]: an [`Agent`] over a memory store, a scripted model and a
//! manual clock, with the conversation it talks in and the events it
//! emitted; made by its [`Builder`].
//!
//! ```ignore
//! let h = TestAgent::builder(turns).config(config).tool(lookup).build();
//! let reply = h.send("Hi").unwrap();
//! assert_eq!(h.roles(), [Role::User, Role::Assistant]);
//! ```
//!
//! A clone of a builder shares its store, model and clock: building it again
//! (with [`Builder::open`] on the first one's conversation) is a second page
//! over the same database, for reload and two-tab tests.

use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;

use lectern::agent::{
    Agent, AgentConfig, ArchiveLoader, MentionResolver, SendOptions, TurnError, TurnLocks, TurnResult,
};
use lectern::approval::ApprovalDecision;
use lectern::domain::{Message, NewConversation, Role};
use lectern::events::{EventKind, EventSink};
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::provider::Model;
use lectern::retrieval::library::Library;
use lectern::runtime::time::ManualClock;
use lectern::storage::{MemoryStore, Store, StoreArchive};
use lectern::tool::Tool;

use super::EventLog;

/// Where the manual clock of a [`TestAgent`] starts unless told otherwise
/// (2023-11-14T22:13:20Z).
pub const START_MS: f64 = 1_700_000_000_000.0;

/// An agent under test, with what it was built over. `S` is its store and `M`
/// its model, kept as their own types so that a test can read what they
/// recorded (`h.model.requests()`, a hooked store's fields).
pub struct TestAgent<S: ?Sized = MemoryStore, M: ?Sized = ScriptedModel> {
    /// The agent.
    pub agent: Agent,
    /// Its store.
    pub store: Rc<S>,
    /// Its model.
    pub model: Rc<M>,
    /// Its clock; [`TestAgent::send`] drives turns on it.
    pub clock: ManualClock,
    /// The conversation made (or opened) at build; empty with
    /// [`Builder::without_conversation`].
    pub conversation: String,
    events: EventLog,
    sink: EventSink,
}

impl TestAgent {
    /// A builder for an agent over a new memory store, a [`ScriptedModel`]
    /// playing `turns`, a [`ManualClock`] at [`START_MS`] and the default
    /// configuration, with no tools.
    pub fn builder(turns: Vec<ScriptedTurn>) -> Builder {
        Builder::over(Rc::new(ScriptedModel::new(turns)))
    }
}

impl<S: Store + ?Sized + 'static, M: ?Sized> TestAgent<S, M> {
    /// Sends `text` in the conversation, driving the turn on the clock;
    /// events go to [`TestAgent::events`].
    pub fn send(&self, text: &str) -> Result<TurnResult, TurnError> {
        self.send_with(text, &SendOptions::default())
    }

    /// [`TestAgent::send`] with `options`.
    pub fn send_with(&self, text: &str, options: &SendOptions) -> Result<TurnResult, TurnError> {
        self.send_in(&self.conversation, text, options)
    }

    /// [`TestAgent::send_with`] in another conversation.
    pub fn send_in(
        &self,
        conversation_id: &str,
        text: &str,
        options: &SendOptions,
    ) -> Result<TurnResult, TurnError> {
        self.clock
            .drive(self.agent.send(conversation_id, text, options, &self.sink))
    }

    /// The turn of [`TestAgent::send_with`], not yet driven: for tests that
    /// race it against something else on the clock.
    pub fn sending<'a>(
        &'a self,
        text: &'a str,
        options: &'a SendOptions,
    ) -> impl Future<Output = Result<TurnResult, TurnError>> + 'a {
        self.agent.send(&self.conversation, text, options, &self.sink)
    }

    /// Resolves the paused turn `turn_id` with `decisions`, driven on the clock.
    pub fn resolve(&self, turn_id: &str, decisions: &[ApprovalDecision]) -> Result<TurnResult, TurnError> {
        self.clock.drive(self.agent.resolve_approvals(
            turn_id,
            decisions,
            &SendOptions::default(),
            &self.sink,
        ))
    }

    /// The sink every turn of this harness reports to.
    pub fn sink(&self) -> &EventSink {
        &self.sink
    }

    /// What every event so far reported, in order.
    pub fn events(&self) -> Vec<EventKind> {
        self.events.kinds()
    }

    /// The log the events go to (types, whole events as JSON).
    pub fn event_log(&self) -> &EventLog {
        &self.events
    }

    /// Makes another conversation; its id.
    pub fn create_conversation(&self, new: NewConversation) -> String {
        self.clock.drive(self.agent.create_conversation(new)).unwrap().id
    }

    /// The conversation's stored messages.
    pub fn messages(&self) -> Vec<Message> {
        self.clock.drive(self.store.messages(&self.conversation)).unwrap()
    }

    /// The role of each stored message.
    pub fn roles(&self) -> Vec<Role> {
        self.messages().iter().map(|m| m.role).collect()
    }

    /// Each stored message as (role, content).
    pub fn history(&self) -> Vec<(Role, String)> {
        self.messages().into_iter().map(|m| (m.role, m.content)).collect()
    }

    /// The stored tool results, as the model reads them.
    pub fn tool_results(&self) -> Vec<String> {
        tool_results_of(self.messages())
    }
}

/// A model a [`Builder`] can take: any [`Model`], or an `Rc<dyn Model>` (a
/// provider behind its call policy).
pub trait AnyModel {
    /// The model as the agent holds it.
    fn into_dyn(self: Rc<Self>) -> Rc<dyn Model>;
}

impl<T: Model + 'static> AnyModel for T {
    fn into_dyn(self: Rc<Self>) -> Rc<dyn Model> {
        self
    }
}

impl AnyModel for dyn Model {
    fn into_dyn(self: Rc<Self>) -> Rc<dyn Model> {
        self
    }
}

/// The conversation a build makes or opens.
#[derive(Clone)]
pub(super) enum Conversation {
    New(NewConversation),
    Open(String),
    None,
}

/// Sets up a [`TestAgent`]; see [`TestAgent::builder`] for the defaults.
pub struct Builder<S: ?Sized = MemoryStore, M: ?Sized = ScriptedModel> {
    pub(super) store: Rc<S>,
    pub(super) agent_store: Rc<dyn Store>,
    pub(super) agent_archive: Rc<dyn StoreArchive>,
    pub(super) model: Rc<M>,
    pub(super) agent_model: Rc<dyn Model>,
    pub(super) clock: ManualClock,
    pub(super) config: AgentConfig,
    pub(super) tools: Vec<Rc<dyn Tool>>,
    pub(super) locks: Option<Rc<dyn TurnLocks>>,
    pub(super) mentions: Option<Rc<dyn MentionResolver>>,
    pub(super) library: Option<Rc<Library>>,
    pub(super) conversation: Conversation,
    /// Counts loads of the archive when it is fetched on first use instead of handed over.
    pub(super) archive_loads: Option<Rc<Cell<u32>>>,
}

impl<S: ?Sized, M: ?Sized> Clone for Builder<S, M> {
    fn clone(&self) -> Self {
        Builder {
            store: self.store.clone(),
            agent_store: self.agent_store.clone(),
            agent_archive: self.agent_archive.clone(),
            model: self.model.clone(),
            agent_model: self.agent_model.clone(),
            clock: self.clock.clone(),
            config: self.config.clone(),
            tools: self.tools.clone(),
            locks: self.locks.clone(),
            mentions: self.mentions.clone(),
            library: self.library.clone(),
            conversation: self.conversation.clone(),
            archive_loads: self.archive_loads.clone(),
        }
    }
}

impl<M: AnyModel + ?Sized> Builder<MemoryStore, M> {
    /// A builder for an agent over `model` (any model, not only a scripted
    /// one), with the other defaults of [`TestAgent::builder`].
    pub fn over(model: Rc<M>) -> Self {
        let store = Rc::new(MemoryStore::new());
        Builder {
            agent_store: store.clone(),
            agent_archive: store.clone(),
            store,
            agent_model: model.clone().into_dyn(),
            model,
            clock: ManualClock::new(START_MS),
            config: AgentConfig::default(),
            tools: Vec::new(),
            locks: None,
            mentions: None,
            library: None,
            conversation: Conversation::New(NewConversation::default()),
            archive_loads: None,
        }
    }
}

impl<S: ?Sized, M: ?Sized> Builder<S, M> {
    /// Over `store` instead of a new memory store (one that injects faults,
    /// or one already holding a book).
    pub fn store<T: Store + StoreArchive + 'static>(self, store: Rc<T>) -> Builder<T, M> {
        Builder {
            agent_store: store.clone(),
            agent_archive: store.clone(),
            store,
            model: self.model,
            agent_model: self.agent_model,
            clock: self.clock,
            config: self.config,
            tools: self.tools,
            locks: self.locks,
            mentions: self.mentions,
            library: self.library,
            conversation: self.conversation,
            archive_loads: self.archive_loads,
        }
    }

    /// With this configuration instead of the default one.
    pub fn config(mut self, config: AgentConfig) -> Self {
        self.config = config;
        self
    }

    /// On this clock (say `ManualClock::with_timers` for real races).
    pub fn clock(mut self, clock: ManualClock) -> Self {
        self.clock = clock;
        self
    }

    /// Registers `tool` (in the order given).
    pub fn tool(mut self, tool: impl Tool + 'static) -> Self {
        self.tools.push(Rc::new(tool));
        self
    }

    /// Registers each of `tools`.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Rc<dyn Tool>>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Shares these turn locks (two tabs on one database).
    pub fn locks(mut self, locks: Rc<dyn TurnLocks>) -> Self {
        self.locks = Some(locks);
        self
    }

    /// Resolves mentions with `resolver`.
    pub fn mentions(mut self, resolver: Rc<dyn MentionResolver>) -> Self {
        self.mentions = Some(resolver);
        self
    }

    /// Gives the agent this library (and so `search_book`).
    pub fn library(mut self, library: Rc<Library>) -> Self {
        self.library = Some(library);
        self
    }

    /// Titles the conversation made at build.
    pub fn title(mut self, title: &str) -> Self {
        self.new_conversation().title = Some(title.to_owned());
        self
    }

    /// Binds the conversation made at build to a book.
    pub fn book(mut self, book_id: &str) -> Self {
        self.new_conversation().book_id = Some(book_id.to_owned());
        self
    }

    /// Talks in an existing conversation instead of making one.
    pub fn open(mut self, conversation_id: &str) -> Self {
        self.conversation = Conversation::Open(conversation_id.to_owned());
        self
    }

    /// Gives the agent its store's archive through an [`ArchiveLoader`] on
    /// first use (as the package does), counting the loads in `loads`, instead
    /// of handing it over at build.
    pub fn archive_on_first_use(mut self, loads: Rc<Cell<u32>>) -> Self {
        self.archive_loads = Some(loads);
        self
    }

    /// Makes no conversation at build (tests that make their own, or count them).
    pub fn without_conversation(mut self) -> Self {
        self.conversation = Conversation::None;
        self
    }

    fn new_conversation(&mut self) -> &mut NewConversation {
        if !matches!(self.conversation, Conversation::New(_)) {
            self.conversation = Conversation::New(NewConversation::default());
        }
        match &mut self.conversation {
            Conversation::New(new) => new,
            _ => unreachable!(),
        }
    }

    /// The agent, its tools registered and its conversation made.
    pub fn build(self) -> TestAgent<S, M> {
        let mut agent = Agent::new(
            self.agent_store,
            self.agent_model,
            Rc::new(self.clock.clone()),
            self.config,
        );
        match self.archive_loads {
            Some(loads) => {
                let archive = self.agent_archive;
                let loader: ArchiveLoader = Rc::new(move || {
                    loads.set(loads.get() + 1);
                    let archive = archive.clone();
                    Box::pin(async move { Ok(archive) })
                });
                agent = agent.with_archive_loader(loader);
            }
            None => agent.set_archive(self.agent_archive),
        }
        if let Some(locks) = self.locks {
            agent = agent.with_turn_locks(locks);
        }
        if let Some(resolver) = self.mentions {
            agent = agent.with_mention_resolver(resolver);
        }
        if let Some(library) = self.library {
            agent = agent.with_library(library).unwrap();
        }
        for tool in self.tools {
            agent.register_tool(tool).unwrap();
        }
        let conversation = match self.conversation {
            Conversation::New(new) => self.clock.drive(agent.create_conversation(new)).unwrap().id,
            Conversation::Open(id) => id,
            Conversation::None => String::new(),
        };
        let events = EventLog::default();
        TestAgent {
            agent,
            store: self.store,
            model: self.model,
            clock: self.clock,
            conversation,
            sink: events.sink(),
            events,
        }
    }
}

/// The tool results among stored `messages`, as the model reads them.
pub fn tool_results_of(messages: Vec<Message>) -> Vec<String> {
    messages
        .into_iter()
        .filter(|m| m.role == Role::ToolResult)
        .map(|m| m.content)
        .collect()
}
