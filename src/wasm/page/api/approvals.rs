//! The human-in-the-loop methods of `Lectern`: pendingApprovals,
//! resolveApprovals, cancelPending, setApprovals, resetApprovals, toolCalls, runHeadless, runs, run;
//! the rarely used ones' work is split off the page's module (`split_off!`).

use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use crate::agent::{HeadlessRequest, TurnError, TurnResult};
use crate::approval::ApprovalDecision;
use crate::domain::ReviewDecision;
use crate::error::{Error, Result};
use crate::wasm::js::{error_to_js, from_js, string_arg, to_js};
use crate::wasm::page::host::approval_options::read_approvals;
use crate::wasm::page::lectern::{Inner, Lectern};
use crate::wasm::page::send_options::{signal_only, split_signal};
use crate::wasm::page::split_off::split_off;
use crate::wasm::page::tool_call_shape::{shape_records, shape_records_in};
use crate::wasm::panic_guard::check_js;

#[wasm_bindgen]
extern "C" {
    /// The decisions of `resolveApprovals`.
    #[wasm_bindgen(typescript_type = "ApprovalDecision[]")]
    pub type ApprovalDecisionsInput;

    /// The options of `resolveApprovals`.
    #[wasm_bindgen(typescript_type = "ResolveOptions")]
    pub type ResolveOptionsInput;

    /// The argument of `runHeadless`.
    #[wasm_bindgen(typescript_type = "HeadlessOptions")]
    pub type HeadlessOptionsInput;
}

#[wasm_bindgen]
impl Lectern {
    /// Turns waiting for approval, of one conversation or of all, oldest first
    /// (read from the database, so they survive a reload).
    #[wasm_bindgen(js_name = pendingApprovals, unchecked_return_type = "Promise<PendingApproval[]>")]
    pub fn pending_approvals(
        &self,
        #[wasm_bindgen(js_name = "conversationId")] conversation_id: Option<String>,
    ) -> Promise {
        self.call(|inner| async move { inner.agent.pending_approvals(conversation_id.as_deref()).await })
    }

    /// Decides calls of a paused turn and goes on with it; resolves like `send`.
    #[wasm_bindgen(js_name = resolveApprovals, unchecked_return_type = "Promise<SendOutcome>")]
    pub fn resolve_approvals(
        &self,
        #[wasm_bindgen(js_name = "turnId", unchecked_param_type = "string")] turn_id: JsValue,
        decisions: ApprovalDecisionsInput,
        options: Option<ResolveOptionsInput>,
    ) -> Promise {
        let (decisions, options) = (JsValue::from(decisions), options.map(JsValue::from));
        self.call_turn(|inner| resolve_approvals(inner, turn_id, decisions, options))
    }

    /// Cancels a paused turn: its waiting calls are not run, and the conversation takes messages again.
    #[wasm_bindgen(js_name = cancelPending, unchecked_return_type = "Promise<void>")]
    pub fn cancel_pending(
        &self,
        #[wasm_bindgen(js_name = "turnId", unchecked_param_type = "string")] turn_id: JsValue,
    ) -> Promise {
        self.call_js_with_id(turn_id, "turnId", cancel_pending)
    }

    /// Replaces the approval policies (`approvals` of `Lectern.open`) from the
    /// next tool step on, without a reopen; per instance, not stored.
    #[wasm_bindgen(js_name = setApprovals)]
    pub fn set_approvals(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ApprovalOptions")] policy: JsValue,
    ) -> std::result::Result<(), JsValue> {
        check_js()?;
        let config = read_approvals(policy).map_err(|e| error_to_js(&e))?;
        self.inner.agent.set_approvals(config);
        Ok(())
    }

    /// Turns auto-approval on or off (every `'ask'` approved without asking;
    /// `'deny'` still refuses), the other approval policies kept, from the
    /// next tool step on; per instance, not stored.
    #[wasm_bindgen(js_name = setAutoApprove)]
    pub fn set_auto_approve(&self, on: bool) -> std::result::Result<(), JsValue> {
        check_js()?;
        self.inner.agent.set_auto_approve(on);
        Ok(())
    }

    /// Whether auto-approval is on (`approvals.autoApprove`, or the last `setAutoApprove`).
    #[wasm_bindgen(js_name = autoApprove)]
    pub fn auto_approve(&self) -> std::result::Result<bool, JsValue> {
        check_js()?;
        Ok(self.inner.agent.approvals().auto_approve)
    }

    /// Revokes every "always allow" (`approveAlways`) of a conversation: its tools ask again.
    #[wasm_bindgen(js_name = resetApprovals, unchecked_return_type = "Promise<void>")]
    pub fn reset_approvals(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
    ) -> Promise {
        self.call_js_with_id(conversation_id, "conversationId", reset_approvals)
    }

    /// Every tool call of a conversation and what came of it.
    #[wasm_bindgen(js_name = toolCalls, unchecked_return_type = "Promise<ToolCallRecord[]>")]
    pub fn tool_calls(
        &self,
        #[wasm_bindgen(js_name = "conversationId", unchecked_param_type = "string")] conversation_id: JsValue,
    ) -> Promise {
        self.call_js_with_id(conversation_id, "conversationId", |inner, id| async move {
            let records = to_js(&inner.agent.tool_calls(&id).await?)?;
            shape_records(&records);
            Ok(records)
        })
    }

    /// Runs an instruction with every allowed tool auto-approved and stores the run.
    #[wasm_bindgen(js_name = runHeadless, unchecked_return_type = "Promise<RunRecord>")]
    pub fn run_headless(&self, options: HeadlessOptionsInput) -> Promise {
        let options = JsValue::from(options);
        self.call_js(|inner| run_headless(inner, options))
    }

    /// Every headless run, oldest first.
    #[wasm_bindgen(unchecked_return_type = "Promise<RunRecord[]>")]
    pub fn runs(&self) -> Promise {
        self.call_js(|inner| async move {
            let runs = to_js(&inner.agent.runs().await?)?;
            js_sys::Array::from(&runs)
                .iter()
                .for_each(|run| shape_records_in(&run, "toolCalls"));
            Ok(runs)
        })
    }

    /// One headless run (rejects with `NotFoundError` for an unknown id).
    #[wasm_bindgen(unchecked_return_type = "Promise<RunRecord>")]
    pub fn run(
        &self,
        #[wasm_bindgen(js_name = "runId", unchecked_param_type = "string")] run_id: JsValue,
    ) -> Promise {
        self.call_js_with_id(run_id, "runId", run)
    }

    /// A person's verdict on a `proposed` (or `failed`) run: `'accept'` or
    /// `'reject'`, with an optional note; resolves with the updated run.
    #[wasm_bindgen(js_name = reviewRun, unchecked_return_type = "Promise<RunRecord>")]
    pub fn review_run(
        &self,
        #[wasm_bindgen(js_name = "runId", unchecked_param_type = "string")] run_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "'accept' | 'reject'")] decision: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string | undefined")] note: JsValue,
    ) -> Promise {
        self.call_js_with_id(run_id, "runId", move |inner, id| {
            review_run(inner, id, decision, note)
        })
    }
}

split_off!(
    approvals,
    /// `resolveApprovals`' work.
    fn resolve_approvals(
        inner: Rc<Inner>,
        turn_id: JsValue,
        decisions: JsValue,
        options: Option<JsValue>,
    ) -> std::result::Result<TurnResult, TurnError> {
        let turn_id = string_arg(&turn_id, "turnId")?;
        let decisions: Vec<ApprovalDecision> = from_js(decisions, "approval decisions")?;
        let options = signal_only(options, "resolveApprovals")?;
        inner
            .agent
            .resolve_approvals(&turn_id, &decisions, &options, &inner.sink(None))
            .await
    }
);

split_off!(
    approvals,
    /// `cancelPending`'s work.
    fn cancel_pending(inner: Rc<Inner>, turn_id: String) -> Result<JsValue> {
        to_js(&inner.agent.cancel_pending(&turn_id).await?)
    }
);

split_off!(
    maintenance,
    /// `resetApprovals`' work.
    fn reset_approvals(inner: Rc<Inner>, id: String) -> Result<JsValue> {
        to_js(&inner.archived_agent().reset_approvals(&id).await?)
    }
);

split_off!(
    history,
    /// `runHeadless`' work.
    fn run_headless(inner: Rc<Inner>, options: JsValue) -> Result<JsValue> {
        let (rest, cancel) = split_signal(&options, "runHeadless options")?;
        if !rest.is_object() {
            return Err(Error::config("runHeadless needs an options object"));
        }
        let request: HeadlessRequest = from_js(rest, "runHeadless options")?;
        let run = inner
            .archived_agent()
            .run_headless(request, cancel, &inner.sink(None))
            .await?;
        shaped_run(to_js(&run)?)
    }
);

split_off!(
    history,
    /// `run`'s work.
    fn run(inner: Rc<Inner>, id: String) -> Result<JsValue> {
        shaped_run(to_js(&inner.archived_agent().run(&id).await?)?)
    }
);

split_off!(
    history,
    /// `reviewRun`'s work.
    fn review_run(inner: Rc<Inner>, id: String, decision: JsValue, note: JsValue) -> Result<JsValue> {
        let decision: ReviewDecision = from_js(decision, "reviewRun decision ('accept' or 'reject')")?;
        let note = match note.is_undefined() || note.is_null() {
            true => None,
            false => Some(string_arg(&note, "note")?),
        };
        shaped_run(to_js(
            &inner.archived_agent().review_run(&id, decision, note).await?,
        )?)
    }
);

/// A run for JS: its tool-call records reshaped ([`shape_records_in`]).
fn shaped_run(run: JsValue) -> Result<JsValue> {
    shape_records_in(&run, "toolCalls");
    Ok(run)
}
