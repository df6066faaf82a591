//! Conformance cases for `put_synced_messages` (issue 50): a conversation's
//! messages put in the synced document's order in one step, its other
//! records kept, and nothing written when any message is refused.

use lectern::domain::Role;
use lectern::error::{Error, StorageReason};
use lectern::storage::{Store, StoreArchive, SyncedMessages};

use super::{conversation, message};

/// The ids of a conversation's stored messages, in `seq` order, and their `seq`s.
async fn order(store: &impl Store, id: &str) -> Vec<(String, u32)> {
    let messages = store.messages(id).await.unwrap();
    messages.into_iter().map(|m| (m.id, m.seq)).collect()
}

fn pairs(ids: &[&str]) -> Vec<(String, u32)> {
    ids.iter()
        .zip(0u32..)
        .map(|(id, seq)| (id.to_string(), seq))
        .collect()
}

/// A stored conversation takes the synced order (another device's message
/// between its own) and record; its grants, usage and other conversations stay.
pub async fn synced_messages_replace_a_conversations_in_their_order(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    store.create_conversation(&conversation("c2", 2.0)).await.unwrap();
    let (a, b) = (
        message("a", "c1", Role::User, "¿Quién?"),
        message("b", "c1", Role::Assistant, "Nadie"),
    );
    store
        .append_messages(vec![a.clone(), b.clone(), message("z", "c2", Role::User, "z")])
        .await
        .unwrap();
    let remote = message("r", "c1", Role::User, "from the phone");
    let mut renamed = conversation("c1", 1.0);
    renamed.title = "Renamed on the phone".into();
    let synced = SyncedMessages {
        conversation: renamed.clone(),
        messages: vec![a, remote, b],
    };
    store.put_synced_messages(synced).await.unwrap();
    assert_eq!(order(&store, "c1").await, pairs(&["a", "r", "b"]));
    assert_eq!(store.conversation("c1").await.unwrap(), Some(renamed));
    assert_eq!(store.messages("c1").await.unwrap()[1].content, "from the phone");
    assert_eq!(order(&store, "c2").await, pairs(&["z"]));
    // The conversation goes on after them.
    store
        .append_messages(vec![message("c", "c1", Role::User, "and?")])
        .await
        .unwrap();
    assert_eq!(order(&store, "c1").await, pairs(&["a", "r", "b", "c"]));
}

/// A conversation only another device has is created with its messages.
pub async fn synced_messages_create_a_missing_conversation(store: impl Store + StoreArchive) {
    let messages = vec![
        message("p", "c9", Role::User, "hello"),
        message("q", "c9", Role::Assistant, "hi"),
    ];
    let synced = SyncedMessages {
        conversation: conversation("c9", 9.0),
        messages,
    };
    store.put_synced_messages(synced).await.unwrap();
    assert_eq!(store.conversations().await.unwrap().len(), 1);
    assert_eq!(order(&store, "c9").await, pairs(&["p", "q"]));
}

/// A message of another conversation, an id given twice, or one another
/// conversation's message holds: `Storage` (constraint), nothing written.
pub async fn refused_synced_messages_write_nothing(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    store.create_conversation(&conversation("c2", 2.0)).await.unwrap();
    store
        .append_messages(vec![message("a", "c1", Role::User, "a")])
        .await
        .unwrap();
    store
        .append_messages(vec![message("z", "c2", Role::User, "z")])
        .await
        .unwrap();
    let refused = [
        vec![
            message("b", "c1", Role::User, "b"),
            message("x", "c2", Role::User, "misfiled"),
        ],
        vec![
            message("b", "c1", Role::User, "b"),
            message("b", "c1", Role::User, "again"),
        ],
        vec![
            message("b", "c1", Role::User, "b"),
            message("z", "c1", Role::User, "taken"),
        ],
    ];
    for messages in refused {
        let mut renamed = conversation("c1", 1.0);
        renamed.title = "not written".into();
        let synced = SyncedMessages {
            conversation: renamed,
            messages,
        };
        let error = store.put_synced_messages(synced).await.unwrap_err();
        assert!(
            matches!(
                error,
                Error::Storage {
                    reason: StorageReason::Constraint,
                    ..
                }
            ),
            "{error:?}"
        );
        assert_eq!(order(&store, "c1").await, pairs(&["a"]));
        assert_eq!(order(&store, "c2").await, pairs(&["z"]));
        assert_eq!(store.conversation("c1").await.unwrap().unwrap().title, "Title c1");
    }
}
