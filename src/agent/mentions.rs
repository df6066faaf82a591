//! Resolving the user's mentions into text for the model.

use futures::future::LocalBoxFuture;

use crate::domain::Mention;
use crate::error::Result;

/// Turns a mention into the text the model should see (the host's documents, notes, ...).
pub trait MentionResolver {
    /// The content `mention` refers to.
    fn resolve(&self, mention: &Mention) -> LocalBoxFuture<'_, Result<String>>;
}
