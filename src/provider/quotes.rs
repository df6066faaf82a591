//! `provider: { kind: 'quotes' }`: no model. A book conversation's answers
//! are quotes from the passages in front of the reader (the agent writes
//! them: `retrieval::quotes`); anything else has nothing to quote, so the
//! model it stands for refuses with a clear error.

use futures::future::LocalBoxFuture;

use super::{Model, ModelRequest, PartStream};
use crate::error::{Error, Result};
use crate::json::from_json::FromJson;
use crate::runtime::cancel::CancelToken;

/// `provider: { kind: 'quotes', model? }`.
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuotesSettings {
    /// The name in usage records and events (default `quotes`).
    #[serde(default = "default_model")]
    pub model: String,
}

fn default_model() -> String {
    "quotes".into()
}

/// What the agent calls for a `quotes` provider outside a book conversation.
pub struct QuotesModel {
    name: String,
}

impl QuotesModel {
    /// The stand-in model of these settings.
    pub fn new(settings: &QuotesSettings) -> Self {
        QuotesModel {
            name: settings.model.clone(),
        }
    }
}

/// The error of a `quotes` provider asked something that is not about a book.
pub fn nothing_to_quote() -> Error {
    Error::config(
        "the quotes provider answers questions about a book, from its passages: this conversation has no book",
    )
}

impl Model for QuotesModel {
    fn stream(
        &self,
        _request: &ModelRequest,
        _cancel: &CancelToken,
    ) -> LocalBoxFuture<'_, Result<PartStream>> {
        Box::pin(async { Err(nothing_to_quote()) })
    }

    fn model_name(&self) -> &str {
        &self.name
    }
}
