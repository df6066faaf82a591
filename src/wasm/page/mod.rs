//! The page's module (feature `page`, `lectern.js`): the [`Lectern`] class
//! ([`lectern`]), its methods by concern ([`api`]), what calls the page's
//! own JS ([`host`]: its tools, providers, policies, listeners, mentions and
//! the books module it loads), and the hand-written TypeScript types of
//! `lectern.d.ts` ([`typescript`]).

mod api;
mod builtin_tools;
mod call;
mod event_stream;
mod host;
mod lectern;
mod models;
mod options;
mod send_options;
mod split_off;
mod stored;
#[cfg(feature = "test-support")]
mod test_support;
mod tool_call_shape;
mod typescript;

pub use host::custom_provider::JsFunctionModel;
pub use lectern::Lectern;
