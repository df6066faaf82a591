//! Building the model a [`ProviderConfig`] describes.

use std::rc::Rc;

use super::http_model::HttpModel;
use super::{GuardedModel, Model, ProviderConfig, ProviderKind, QuotesModel};
use crate::error::{Error, Result};
use crate::http::Transport;
use crate::runtime::time::Clock;

/// The provider for a server kind, sending through `transport`.
///
/// `custom` has no server: the JS boundary builds it around the host's function.
pub fn provider_for(
    kind: &ProviderKind,
    transport: Rc<dyn Transport>,
    clock: Rc<dyn Clock>,
) -> Result<Rc<dyn Model>> {
    match kind {
        ProviderKind::Openai(settings) => Ok(Rc::new(HttpModel::new(settings.clone(), transport, clock))),
        ProviderKind::Anthropic(settings) => Ok(Rc::new(HttpModel::new(settings.clone(), transport, clock))),
        ProviderKind::Custom(_) => Err(missing_custom_call()),
        ProviderKind::Quotes(settings) => Ok(Rc::new(QuotesModel::new(settings))),
    }
}

/// The error of a `custom` provider given without its function (`provider.call`).
pub fn missing_custom_call() -> Error {
    Error::config("a custom provider needs its function (provider.call); it is built by the JS API")
}

/// `inner` wrapped with the config's retries, rate limit and timeouts.
pub fn with_policy(config: &ProviderConfig, inner: Rc<dyn Model>, clock: Rc<dyn Clock>) -> Rc<dyn Model> {
    Rc::new(GuardedModel::new(inner, clock, config.policy.clone()).local(config.local))
}
