//! Building the model a [`ProviderConfig`] describes.

use std::rc::Rc;

use super::anthropic::{AnthropicProvider, AnthropicSettings};
use super::openai::{OpenAiProvider, OpenAiSettings};
use super::{GuardedModel, Model, ProviderConfig, ProviderKind};
use crate::error::{Error, Result};
use crate::http::Transport;
use crate::time::Clock;

/// The provider for a server kind, sending through `transport`.
///
/// `custom` has no server: the JS boundary builds it around the host's function.
pub fn provider_for(
    kind: &ProviderKind,
    transport: Rc<dyn Transport>,
    clock: Rc<dyn Clock>,
) -> Result<Rc<dyn Model>> {
    match kind.clone() {
        ProviderKind::Openai {
            base_url,
            model,
            api_key,
            stream,
            headers,
            temperature,
            max_tokens,
            tool_choice,
        } => Ok(Rc::new(OpenAiProvider::new(
            OpenAiSettings {
                base_url,
                model,
                api_key,
                stream,
                headers,
                temperature,
                max_tokens,
                tool_choice,
            },
            transport,
            clock,
        ))),
        ProviderKind::Anthropic {
            base_url,
            model,
            api_key,
            stream,
            headers,
            temperature,
            max_tokens,
            anthropic_version,
        } => Ok(Rc::new(AnthropicProvider::new(
            AnthropicSettings {
                base_url,
                model,
                api_key,
                stream,
                headers,
                temperature,
                max_tokens,
                anthropic_version,
            },
            transport,
            clock,
        ))),
        ProviderKind::Custom { .. } => Err(Error::config(
            "a custom provider needs its function (provider.call); it is built by the JS API",
        )),
    }
}

/// `inner` wrapped with the config's retries, rate limit and timeouts.
pub fn with_policy(config: &ProviderConfig, inner: Rc<dyn Model>, clock: Rc<dyn Clock>) -> Rc<dyn Model> {
    Rc::new(GuardedModel::new(inner, clock, config.policy.clone()))
}
