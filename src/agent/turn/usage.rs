//! Counting each model call of a turn: its usage into the turn's state and,
//! as the call ends, into its conversation's stored totals (`usage(conversationId)`,
//! `budgetPeriod`), and what it carried into the egress ledger. A call cut
//! off by an abort, a timeout or a broken stream is counted too, estimated:
//! the provider may well bill it.

use super::Turn;
use crate::agent::egress::{egress_entry, Carried};
use crate::agent::usage_estimate::{failed_call_usage, usage_or_estimate};
use crate::domain::{CallUsage, TurnUsage, Usage};
use crate::error::Error;
use crate::events::EventKind;
use crate::provider::{ModelRequest, ModelResponse};

impl Turn<'_> {
    /// The cost of `usage` on the model this turn asks, where it has a price.
    pub(super) fn cost_usd(&self, usage: &Usage) -> Option<f64> {
        self.agent.cost_usd(self.state.overrides.model.as_deref(), usage)
    }

    /// The turn's usage so far, with its cost.
    pub fn usage(&self) -> TurnUsage {
        let mut usage = TurnUsage::from(self.state.usage);
        usage.cost_usd = self.cost_usd(&self.state.usage);
        usage
    }

    /// Adds a finished call's usage to the turn and the conversation's
    /// totals; returns its cost where the model has a price.
    async fn count_call(&mut self, usage: Usage) -> Option<f64> {
        self.state.usage.add(&usage);
        let cost_usd = self.cost_usd(&usage);
        let call = CallUsage {
            usage,
            cost_usd,
            first_of_turn: self.state.steps == 1,
        };
        // Accounting only: a failed write must not fail the turn whose answer is on its way.
        let _ = self
            .agent
            .store
            .add_usage(&self.scope.conversation_id, call)
            .await;
        cost_usd
    }

    /// Counts a call that answered — its usage (the provider's, or an
    /// estimate marked as such) into the turn, the conversation's totals and
    /// the egress ledger — and reports it (`tokenUsage`).
    pub(super) async fn count_answered_call(
        &mut self,
        (request, response): (&ModelRequest, &ModelResponse),
        carried: Carried<'_>,
    ) -> Usage {
        let usage = usage_or_estimate(request, response);
        let cost_usd = self.count_call(usage).await;
        self.state.step_cost_usd = cost_usd;
        self.record_egress(request, carried, &usage);
        self.scope.emit(|| EventKind::TokenUsage {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cached_input_tokens: usage.cached_input_tokens,
            cost_usd,
            estimated: usage.estimated,
        });
        usage
    }

    /// Counts a call that failed after the request was sent, estimated from
    /// the request and the text it streamed, and lists it in the egress
    /// ledger (unless the connection itself failed: then nothing left the
    /// device). An error answered before any work (an HTTP error status, a
    /// refused connection) counts nothing.
    pub(super) async fn count_failed_call(
        &mut self,
        request: &ModelRequest,
        carried: Carried<'_>,
        error: &Error,
    ) {
        let partial = self.state.partial_text.as_deref();
        let cut_off = matches!(error, Error::Aborted | Error::Timeout { .. }) || partial.is_some();
        if cut_off {
            let usage = failed_call_usage(request, partial);
            self.count_call(usage).await;
        }
        if matches!(error, Error::Connection { .. }) {
            return;
        }
        let usage = failed_call_usage(request, self.state.partial_text.as_deref());
        self.record_egress(request, carried, &usage);
    }

    /// Adds the entry of a request that was sent (whatever came of it) to the turn's ledger.
    fn record_egress(&mut self, request: &ModelRequest, carried: Carried<'_>, usage: &Usage) {
        let entry = egress_entry(&self.state, request, carried, usage, &*self.agent.model);
        self.state.egress.push(entry);
    }
}
