//! The rule that keeps a tool from running twice across devices: a call
//! runs only on the device that owns its paused turn (written with the call,
//! never rewritten: [`super::rules`]); every device may decide, and the
//! owner acts on all the decisions it has, a rejection beating an approval.
//! A CRDT cannot give two offline devices a lock, so no other device may
//! ever run a call it does not own.

use super::records::SyncedDecision;

/// What the owner does with a call, from every device's decision.
#[derive(Debug, Clone, PartialEq)]
pub enum EffectiveDecision {
    /// No device has decided.
    Undecided,
    /// Run it as the model wrote it.
    Approved,
    /// Run it with these arguments (the edit of the lowest device id, when several edited).
    Edited(String),
    /// Do not run it (the reason of the lowest device id that gave one).
    Rejected(Option<String>),
}

impl EffectiveDecision {
    /// Whether some device decided.
    pub fn is_decided(&self) -> bool {
        *self != EffectiveDecision::Undecided
    }
}

/// The decision of `decisions` (device id, its decision): any rejection
/// wins, then an edit, then an approval. The same on every device that has
/// the same decisions, whatever their order.
pub fn effective_decision(decisions: &[(String, SyncedDecision)]) -> EffectiveDecision {
    let mut sorted: Vec<&(String, SyncedDecision)> = decisions.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let rejections: Vec<&Option<String>> = sorted
        .iter()
        .filter_map(|(_, d)| match d {
            SyncedDecision::Reject { reason } => Some(reason),
            _ => None,
        })
        .collect();
    if !rejections.is_empty() {
        return EffectiveDecision::Rejected(rejections.into_iter().find_map(Clone::clone));
    }
    if let Some(arguments) = sorted.iter().find_map(|(_, d)| match d {
        SyncedDecision::Edit { arguments } => Some(arguments.clone()),
        _ => None,
    }) {
        return EffectiveDecision::Edited(arguments);
    }
    if sorted.iter().any(|(_, d)| *d == SyncedDecision::Approve) {
        return EffectiveDecision::Approved;
    }
    EffectiveDecision::Undecided
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(device: &str, decision: SyncedDecision) -> (String, SyncedDecision) {
        (device.to_owned(), decision)
    }

    #[test]
    fn a_rejection_beats_an_edit_and_an_approval_in_any_order() {
        let reject = SyncedDecision::Reject {
            reason: Some("not now".into()),
        };
        let edit = SyncedDecision::Edit {
            arguments: "{}".into(),
        };
        let mut all = vec![of("a", SyncedDecision::Approve), of("b", edit), of("c", reject)];
        let expected = EffectiveDecision::Rejected(Some("not now".into()));
        assert_eq!(effective_decision(&all), expected);
        all.reverse();
        assert_eq!(effective_decision(&all), expected);
    }

    #[test]
    fn an_edit_beats_an_approval_and_the_lowest_device_s_edit_is_taken() {
        let edit = |a: &str| SyncedDecision::Edit { arguments: a.into() };
        let all = [
            of("z", edit("{\"n\":2}")),
            of("m", SyncedDecision::Approve),
            of("b", edit("{\"n\":1}")),
        ];
        assert_eq!(
            effective_decision(&all),
            EffectiveDecision::Edited("{\"n\":1}".into())
        );
    }

    #[test]
    fn nothing_decided_is_undecided() {
        assert_eq!(effective_decision(&[]), EffectiveDecision::Undecided);
        assert!(!EffectiveDecision::Undecided.is_decided());
        assert!(EffectiveDecision::Approved.is_decided());
    }
}
