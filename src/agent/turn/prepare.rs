//! What a turn carries into every request, found once before its first model
//! call: the user's mentions resolved, and a book conversation's passages
//! (the reader's pages and, with `alwaysRetrieve`, those found for the message).

use super::Turn;
use crate::agent::RetrievalStrategy;
use crate::domain::{Conversation, Mention, Source, SourceVia};
use crate::error::{Error, Result};
use crate::retrieval::reader::context::{format_numbered_sources, format_sources, ReaderContextPlan};

impl Turn<'_> {
    /// Resolves the user message's `mentions` and retrieves the passages for its `text`.
    pub async fn prepare(
        &mut self,
        conversation: &Conversation,
        mentions: &[Mention],
        text: &str,
    ) -> Result<()> {
        self.state.mentions = self.resolve_mentions(mentions).await?;
        self.state.sources = self.retrieve(conversation, text).await?;
        let format = if self.agent.config.cite_passages {
            format_numbered_sources
        } else {
            format_sources
        };
        let sources = &self.state.sources;
        self.state.passages = (!sources.is_empty()).then(|| format(sources));
        Ok(())
    }

    /// Each mention with its content, from `Lectern.open`'s `resolveMention`.
    async fn resolve_mentions(&self, mentions: &[Mention]) -> Result<Vec<(Mention, String)>> {
        if mentions.is_empty() {
            return Ok(Vec::new());
        }
        let resolver = self.agent.mentions.as_ref().ok_or_else(|| {
            Error::config("send was given mentions, but Lectern.open had no resolveMention")
        })?;
        let mut resolved = Vec::with_capacity(mentions.len());
        for mention in mentions {
            let content = self.scope.cancel.run(resolver.resolve(mention)).await?;
            resolved.push((mention.clone(), content));
        }
        Ok(resolved)
    }

    /// The book passages of a book conversation's system message: the
    /// reader's pages and, with `alwaysRetrieve`, the passages found for the
    /// user's message — never past the reader's page.
    async fn retrieve(&self, conversation: &Conversation, text: &str) -> Result<Vec<Source>> {
        let (Some(book_id), Some(library)) = (&conversation.book_id, &self.agent.library) else {
            return Ok(Vec::new());
        };
        let config = &self.agent.config;
        let always = config.retrieval == RetrievalStrategy::AlwaysRetrieve;
        let measured = ReaderContextPlan::default();
        let plan = ReaderContextPlan {
            reader_pages: config.reader_pages,
            passages: if always { config.retrieved_passages } else { 0 },
            introductions: if always { measured.introductions } else { 0 },
            max_tokens: config.passage_budget(&self.state.overrides),
            via: SourceVia::AlwaysRetrieve,
            ..measured
        };
        library
            .reader_context(book_id, text, &plan, &self.scope.cancel)
            .await
    }
}
