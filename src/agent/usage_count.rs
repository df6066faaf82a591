//! Counting each model call's usage: into the turn's state and, as the call
//! ends, into its conversation's stored totals (`usage(conversationId)`,
//! `budgetPeriod`). A call cut off by an abort, a timeout or a broken stream
//! is counted too, estimated: the provider may well bill it.

use super::egress::Carried;
use super::turn_scope::TurnScope;
use super::usage_estimate::{failed_call_usage, usage_or_estimate};
use super::Agent;
use crate::domain::{CallUsage, TurnState, TurnUsage, Usage};
use crate::error::Error;
use crate::events::EventKind;
use crate::provider::{ModelRequest, ModelResponse};

impl Agent {
    /// The cost of `usage` on this agent's model, where it has a price.
    pub(super) fn cost_usd(&self, usage: &Usage) -> Option<f64> {
        self.config.prices.cost_usd(self.model.model_name(), usage)
    }

    /// The turn's usage so far, with its cost.
    pub(super) fn turn_usage(&self, state: &TurnState) -> TurnUsage {
        let mut usage = TurnUsage::from(state.usage);
        usage.cost_usd = self.cost_usd(&state.usage);
        usage
    }

    /// Adds a finished call's usage to the turn and the conversation's
    /// totals; returns its cost where the model has a price.
    pub(super) async fn count_call(
        &self,
        scope: &TurnScope<'_>,
        state: &mut TurnState,
        usage: Usage,
    ) -> Option<f64> {
        state.usage.add(&usage);
        let cost_usd = self.cost_usd(&usage);
        let call = CallUsage {
            usage,
            cost_usd,
            first_of_turn: state.steps == 1,
        };
        // Accounting only: a failed write must not fail the turn whose answer is on its way.
        let _ = self.store.add_usage(scope.conversation_id, call).await;
        cost_usd
    }

    /// Counts a call that answered — its usage (the provider's, or an
    /// estimate marked as such) into the turn, the conversation's totals and
    /// the egress ledger — and reports it (`tokenUsage`).
    pub(super) async fn count_answered_call(
        &self,
        scope: &TurnScope<'_>,
        state: &mut TurnState,
        call: (&ModelRequest, &ModelResponse),
        carried: Carried<'_>,
    ) -> Usage {
        let (request, response) = call;
        let usage = usage_or_estimate(request, response);
        let cost_usd = self.count_call(scope, state, usage).await;
        state.step_cost_usd = cost_usd;
        self.record_egress(state, request, carried, &usage);
        scope.emit(|| EventKind::TokenUsage {
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
    /// ledger. An error answered before any work (an HTTP error status, a
    /// refused connection) counts nothing.
    pub(super) async fn count_failed_call(
        &self,
        scope: &TurnScope<'_>,
        state: &mut TurnState,
        request: &ModelRequest,
        carried: Carried<'_>,
        error: &Error,
    ) {
        let cut_off = matches!(error, Error::Aborted | Error::Timeout { .. }) || state.partial_text.is_some();
        if cut_off {
            let usage = failed_call_usage(request, state.partial_text.as_deref());
            self.count_call(scope, state, usage).await;
        }
        self.record_failed_egress(state, request, carried, error);
    }
}
