//! `SyncReplica`'s tool calls: a call waiting for a person recorded by the
//! device whose turn paused, decided on any device, run only by its owner
//! (`crate::sync::calls`). Decisions and calls go in and out as JSON text.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::replica::{record, SyncReplica};
use crate::domain::ToolCallRecord;
use crate::sync::{EffectiveDecision, SyncedCall, SyncedDecision};

#[wasm_bindgen]
impl SyncReplica {
    /// Records call `call_id` of turn `turn_id` (paused on this device, its
    /// owner) as waiting for a person; one already recorded is left as it
    /// is. Returns its key (`<turn id>:<call id>`), which the other calls take.
    #[wasm_bindgen(js_name = addCall)]
    pub fn add_call(
        &mut self,
        call_id: &str,
        conversation_id: &str,
        turn_id: &str,
        name: &str,
        arguments: &str,
    ) -> Result<String, JsValue> {
        let key = self
            .doc
            .add_call(call_id, conversation_id, turn_id, name, arguments);
        self.queue_update()?;
        Ok(key)
    }

    /// This device's decision on call `id`: `{ decision: 'approve' }`,
    /// `{ decision: 'edit', arguments }` (JSON text) or `{ decision: 'reject', reason? }`.
    pub fn decide(&mut self, id: &str, json: &str) -> Result<(), JsValue> {
        let decision: SyncedDecision =
            serde_json::from_str(json).map_err(|e| refused_decision(&e.to_string()))?;
        self.doc.decide(id, &decision);
        self.queue_update()
    }

    /// Call `id`'s decision from every device's, as JSON (`{ decision:
    /// 'undecided' | 'approved' | 'edited' | 'rejected', arguments?, reason? }`).
    pub fn decision(&self, id: &str) -> String {
        decision_json(&self.doc.decision(id)).to_string()
    }

    /// Every recorded call as a JSON array of `{ id, callId, conversationId,
    /// turnId, name, arguments, owner, decision, done }` (`id`: its key; `done`:
    /// its owner recorded what came of it).
    pub fn calls(&self) -> String {
        let calls: Vec<Value> = self
            .doc
            .calls_decided()
            .into_iter()
            .map(|(id, call, decision, done)| call_json(&id, &call, &decision, done))
            .collect();
        Value::Array(calls).to_string()
    }

    /// The calls this device may run now (owned here, decided, nothing recorded of them yet), as [`Self::calls`] gives them.
    #[wasm_bindgen(js_name = callsToRun)]
    pub fn calls_to_run(&self) -> String {
        let calls: Vec<Value> = self
            .doc
            .calls_to_run()
            .into_iter()
            .map(|(id, call, decision)| call_json(&id, &call, &decision, false))
            .collect();
        Value::Array(calls).to_string()
    }

    /// What came of a call this device ran (a stored tool-call record's JSON), once.
    #[wasm_bindgen(js_name = recordResult)]
    pub fn record_result(&mut self, json: &str) -> Result<(), JsValue> {
        let result: ToolCallRecord = record(json)?;
        self.doc.record_result(&result);
        self.queue_update()
    }
}

fn call_json(id: &str, call: &SyncedCall, decision: &EffectiveDecision, done: bool) -> Value {
    let call_id = id.strip_prefix(&format!("{}:", call.turn_id)).unwrap_or(id);
    json!({
        "id": id,
        "callId": call_id,
        "conversationId": call.conversation_id,
        "turnId": call.turn_id,
        "name": call.name,
        "arguments": call.arguments,
        "owner": call.owner,
        "decision": decision_json(decision),
        "done": done,
    })
}

fn decision_json(decision: &EffectiveDecision) -> Value {
    match decision {
        EffectiveDecision::Undecided => json!({ "decision": "undecided" }),
        EffectiveDecision::Approved => json!({ "decision": "approved" }),
        EffectiveDecision::Edited(arguments) => json!({ "decision": "edited", "arguments": arguments }),
        EffectiveDecision::Rejected(reason) => json!({ "decision": "rejected", "reason": reason }),
    }
}

fn refused_decision(why: &str) -> JsValue {
    js_sys::TypeError::new(&format!("lectern/sync: not a decision: {why}")).into()
}
