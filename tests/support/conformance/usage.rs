//! Conformance cases for usage totals: added call by call, kept apart by
//! conversation, deleted with it, and never written for a missing one.

use lectern::domain::{CallUsage, Usage};
use lectern::storage::{Store, StoreArchive};

use super::conversation;

fn call(input_tokens: u64, output_tokens: u64, cost_usd: Option<f64>, first_of_turn: bool) -> CallUsage {
    CallUsage {
        usage: Usage {
            input_tokens,
            output_tokens,
            cached_input_tokens: 1,
            estimated: false,
        },
        cost_usd,
        first_of_turn,
    }
}

/// Calls add up per conversation; costs sum where known; turns count first calls.
pub async fn usage_totals_add_up_by_conversation(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    store.create_conversation(&conversation("c2", 2.0)).await.unwrap();
    let empty = store.usage_totals("c1").await.unwrap();
    assert_eq!(
        (
            empty.conversation_id.as_str(),
            empty.tokens(),
            empty.turns,
            empty.cost_usd
        ),
        ("c1", 0, 0, None)
    );
    store.add_usage("c1", call(10, 2, Some(0.5), true)).await.unwrap();
    store.add_usage("c1", call(20, 3, None, false)).await.unwrap();
    store.add_usage("c1", call(5, 1, Some(0.25), true)).await.unwrap();
    store.add_usage("c2", call(7, 7, None, true)).await.unwrap();
    let c1 = store.usage_totals("c1").await.unwrap();
    assert_eq!(
        (
            c1.input_tokens,
            c1.output_tokens,
            c1.cached_input_tokens,
            c1.cost_usd,
            c1.turns
        ),
        (35, 6, 3, Some(0.75), 2)
    );
    let c2 = store.usage_totals("c2").await.unwrap();
    assert_eq!((c2.tokens(), c2.cost_usd, c2.turns), (14, None, 1));
}

/// A missing conversation: reading is `NotFound`, adding writes nothing; a
/// deleted conversation's totals go with it.
pub async fn usage_totals_need_their_conversation(store: impl Store + StoreArchive) {
    assert_eq!(
        store.usage_totals("ghost").await.unwrap_err().name(),
        "NotFoundError"
    );
    store.add_usage("ghost", call(1, 1, None, true)).await.unwrap();
    store
        .create_conversation(&conversation("ghost", 1.0))
        .await
        .unwrap();
    assert_eq!(
        store.usage_totals("ghost").await.unwrap().tokens(),
        0,
        "nothing was kept"
    );
    store.add_usage("ghost", call(4, 4, None, true)).await.unwrap();
    store.delete_conversation("ghost").await.unwrap();
    store
        .create_conversation(&conversation("ghost", 2.0))
        .await
        .unwrap();
    assert_eq!(
        store.usage_totals("ghost").await.unwrap().tokens(),
        0,
        "deleted with it"
    );
}
