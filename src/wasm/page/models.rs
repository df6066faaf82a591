//! The model an instance calls, built by provider kind. Anthropic's wire
//! format and the custom provider's bridge are each opened in a chunk of
//! their own ([`split_off!`]), so a page on an OpenAI-compatible server,
//! the default, never loads them.
//!
//! A model's code reaches the page's module through the vtable of its
//! `dyn Model`, built where the trait object is made: for those two kinds,
//! in the split-off function. That is why this does not call
//! [`crate::provider::provider_for`] (native code's one match over the kinds),
//! whose Anthropic arm would keep that code in the page's module.

use std::rc::Rc;

use js_sys::Function;

use super::split_off::split_off;
use crate::error::Result;
use crate::provider::anthropic::AnthropicSettings;
use crate::provider::http_model::HttpModel;
use crate::provider::{
    missing_custom_call, with_policy, CustomSettings, Model, ProviderConfig, ProviderKind, QuotesModel,
};
use crate::wasm::page::host::custom_provider::JsFunctionModel;
use crate::web::{BrowserClock, FetchTransport};

/// The model `config` describes, with its retries, rate limit and timeouts;
/// `call` is the host's function of a custom provider.
pub(super) async fn model_for(config: &ProviderConfig, call: Option<Function>) -> Result<Rc<dyn Model>> {
    let inner: Rc<dyn Model> = match (&config.kind, call) {
        (ProviderKind::Openai(settings), _) => Rc::new(HttpModel::new(
            settings.clone(),
            Rc::new(FetchTransport),
            Rc::new(BrowserClock),
        )),
        (ProviderKind::Anthropic(settings), _) => anthropic_model(settings.clone()).await?,
        (ProviderKind::Custom(settings), Some(call)) => custom_model(call, settings.clone()).await?,
        (ProviderKind::Custom(_), None) => return Err(missing_custom_call()),
        (ProviderKind::Quotes(settings), _) => Rc::new(QuotesModel::new(settings)),
    };
    Ok(with_policy(config, inner, Rc::new(BrowserClock)))
}

split_off!(
    anthropic,
    /// A model on Anthropic's Messages API.
    fn anthropic_model(settings: AnthropicSettings) -> Result<Rc<dyn Model>> {
        let model: Rc<dyn Model> = Rc::new(HttpModel::new(
            settings,
            Rc::new(FetchTransport),
            Rc::new(BrowserClock),
        ));
        Ok(model)
    }
);

split_off!(
    custom,
    /// A model that is the host's function (`provider.call`).
    fn custom_model(call: Function, settings: CustomSettings) -> Result<Rc<dyn Model>> {
        let model: Rc<dyn Model> = Rc::new(JsFunctionModel::new(call, &settings));
        Ok(model)
    }
);
