//! What calls the page's JS: its tools, custom providers, approval policies,
//! listeners and mention resolver, and the books module it loads on first use
//! (with that loader's JS, `books_host.js`), and the changes tabs on one
//! database tell each other (`changes.js`), and the follower of the `sync`
//! option (with its loader, `sync_host.js`).

pub(super) mod approval_options;
pub(super) mod books_remote;
pub(super) mod changes;
pub(super) mod custom_provider;
pub(super) mod js_tool;
pub(super) mod listeners;
pub(super) mod mention_resolver;
pub(super) mod sync_follow;
