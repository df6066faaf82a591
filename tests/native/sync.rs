//! Sync across devices (`lectern::sync`), natively: devices as documents
//! exchanging yrs sync v1 (state vector, then diff) as the y-websocket server
//! relays it. Offline writes merge with nothing lost, nothing twice and one
//! order everywhere; a late device gets everything; a tool call runs only on
//! its owner; a malformed or rule-breaking update changes nothing.

use lectern::domain::{Conversation, Decision, Message, Role, ToolCall, ToolCallRecord};
use lectern::sync::{EffectiveDecision, Rejected, SyncDocument, SyncedDecision};
use yrs::updates::decoder::Decode;
use yrs::{Array, Map, ReadTxn, Transact, WriteTxn};

fn device(name: &str, client: u64) -> SyncDocument {
    SyncDocument::new(name, client)
}

fn conversation(id: &str) -> Conversation {
    Conversation {
        id: id.into(),
        title: "Thursday".into(),
        created_at: 1.0,
        book_id: Some("thursday".into()),
        working_state: None,
    }
}

fn message(id: &str, conversation: &str, text: &str) -> Message {
    Message::new(id.into(), conversation, Role::User, text, 2.0)
}

/// One round of sync v1 both ways, as through the server.
fn sync(a: &SyncDocument, b: &SyncDocument) {
    let to_b = a.diff_for(&b.state_vector()).unwrap();
    let to_a = b.diff_for(&a.state_vector()).unwrap();
    b.apply_remote(&to_b).unwrap();
    a.apply_remote(&to_a).unwrap();
}

fn ids(doc: &SyncDocument, conversation: &str) -> Vec<String> {
    doc.messages(conversation).into_iter().map(|m| m.id).collect()
}

#[test]
fn offline_writes_on_two_devices_merge_with_nothing_lost_none_twice_one_order() {
    let (laptop, phone) = (device("laptop", 1), device("phone", 2));
    laptop.put_conversation(&conversation("c1"));
    laptop.append_message(&message("m1", "c1", "Who is Syme?"));
    sync(&laptop, &phone);
    assert_eq!(ids(&phone, "c1"), ["m1"]);

    for i in 0..20 {
        laptop.append_message(&message(&format!("l{i}"), "c1", "from the laptop"));
        phone.append_message(&message(&format!("p{i}"), "c1", "from the phone"));
    }
    laptop.set_position("thursday", 31, 10.0);
    phone.set_position("thursday", 40, 11.0);
    sync(&laptop, &phone);

    let order = ids(&laptop, "c1");
    assert_eq!(order, ids(&phone, "c1"), "one order on both");
    assert_eq!(order.len(), 41, "every message");
    let unique: std::collections::HashSet<_> = order.iter().collect();
    assert_eq!(unique.len(), 41, "none twice");
    let seqs: Vec<u32> = laptop.messages("c1").iter().map(|m| m.seq).collect();
    assert_eq!(seqs, (0..41).collect::<Vec<_>>());
    assert_eq!(laptop.position("thursday"), phone.position("thursday"));

    let late = device("tablet", 3);
    late.apply_remote(&laptop.snapshot()).unwrap();
    assert_eq!(ids(&late, "c1"), order, "a device joining late gets everything");
    assert_eq!(late.conversations(), vec![conversation("c1")]);
}

#[test]
fn a_message_written_twice_is_one_message_even_from_two_devices() {
    let (a, b) = (device("a", 1), device("b", 2));
    a.put_conversation(&conversation("c1"));
    a.append_message(&message("m1", "c1", "once"));
    a.append_message(&message("m1", "c1", "once"));
    sync(&a, &b);
    // Offline, both devices append the same message (a retried write).
    a.append_message(&message("m2", "c1", "again"));
    b.append_message(&message("m2", "c1", "again"));
    sync(&a, &b);
    assert_eq!(ids(&a, "c1"), ["m1", "m2"]);
    assert_eq!(ids(&b, "c1"), ["m1", "m2"]);
}

fn record(id: &str) -> ToolCallRecord {
    let call = ToolCall {
        id: id.into(),
        name: "write_note".into(),
        arguments: "{}".into(),
    };
    let mut record = ToolCallRecord::not_run(&call, "{}".into(), Decision::Approved, String::new(), 5.0);
    (record.error, record.result, record.attempts) = (None, Some("noted".into()), 1);
    record.turn_id = "t1".into();
    record
}

#[test]
fn an_approval_on_one_device_runs_the_tool_once_on_the_device_that_owns_the_call() {
    let (owner, phone, tablet) = (device("owner", 1), device("phone", 2), device("tablet", 3));
    owner.put_conversation(&conversation("c1"));
    let key = owner.add_call("call-1", "c1", "t1", "write_note", "{}");
    assert_eq!(key, "t1:call-1");
    sync(&owner, &phone);
    sync(&owner, &tablet);
    assert!(owner.calls_to_run().is_empty(), "undecided");

    phone.decide(&key, &SyncedDecision::Approve);
    sync(&phone, &owner);
    sync(&owner, &tablet);
    let runnable = owner.calls_to_run();
    assert_eq!(runnable.len(), 1);
    assert_eq!(runnable[0].2, EffectiveDecision::Approved);
    assert!(
        phone.calls_to_run().is_empty() && tablet.calls_to_run().is_empty(),
        "only the owner runs it"
    );

    owner.record_result(&record("call-1"));
    sync(&owner, &phone);
    sync(&owner, &tablet);
    assert!(
        owner.calls_to_run().is_empty(),
        "run once: the result is recorded"
    );
    assert_eq!(tablet.result(&key).unwrap().result.as_deref(), Some("noted"));
    // A later turn's call under the same provider id is a call of its own.
    let later = owner.add_call("call-1", "c1", "t2", "write_note", "{}");
    phone.decide(&later, &SyncedDecision::Approve);
    sync(&phone, &owner);
    assert_eq!(owner.calls_to_run().len(), 1, "the later turn's call runs too");
}

#[test]
fn every_call_is_listed_with_its_decision_and_whether_it_ran_read_in_one_pass() {
    // Two devices, one with a `/` in its id, deciding on 40 calls (some ids with a `/`).
    let (owner, phone, odd) = (device("owner", 1), device("phone", 2), device("a/b", 3));
    let keys: Vec<String> = (0..40)
        .map(|i| {
            owner.add_call(
                &format!("call/{i}"),
                "c1",
                &format!("t{}", i % 3),
                "write_note",
                "{}",
            )
        })
        .collect();
    for (i, key) in keys.iter().enumerate() {
        match i % 4 {
            0 => phone.decide(key, &SyncedDecision::Approve),
            1 => odd.decide(
                key,
                &SyncedDecision::Reject {
                    reason: Some(format!("no {i}")),
                },
            ),
            2 => {
                phone.decide(key, &SyncedDecision::Approve);
                odd.decide(
                    key,
                    &SyncedDecision::Edit {
                        arguments: format!("{{\"n\":{i}}}"),
                    },
                );
            }
            _ => {}
        }
    }
    sync(&phone, &owner);
    sync(&odd, &owner);
    let mut done = record("call/0");
    done.turn_id = "t0".into();
    owner.record_result(&done);

    let listed = owner.calls_decided();
    assert_eq!(listed.len(), 40);
    for (id, _, decision, ran) in &listed {
        assert_eq!(*decision, owner.decision(id), "{id}");
        assert_eq!(*ran, owner.result(id).is_some(), "{id}");
    }
    let by_id = |id: &str| listed.iter().find(|(key, ..)| key == id).unwrap().2.clone();
    assert_eq!(
        by_id("t1:call/1"),
        EffectiveDecision::Rejected(Some("no 1".into()))
    );
    assert_eq!(by_id("t2:call/2"), EffectiveDecision::Edited("{\"n\":2}".into()));
    assert_eq!(by_id("t0:call/3"), EffectiveDecision::Undecided);
    let to_run: Vec<String> = owner.calls_to_run().into_iter().map(|(id, ..)| id).collect();
    assert_eq!(to_run.len(), 29, "decided, not run: 30 decided, call/0 ran");
    assert!(!to_run.contains(&"t0:call/0".to_owned()));
}

#[test]
fn a_rejection_on_any_device_beats_an_approval_on_another() {
    let (owner, a, b) = (device("owner", 1), device("a", 2), device("b", 3));
    let key = owner.add_call("call-1", "c1", "t1", "delete_notes", "{}");
    sync(&owner, &a);
    sync(&owner, &b);
    a.decide(&key, &SyncedDecision::Approve);
    b.decide(
        &key,
        &SyncedDecision::Reject {
            reason: Some("no".into()),
        },
    );
    sync(&a, &owner);
    sync(&b, &owner);
    assert_eq!(
        owner.decision(&key),
        EffectiveDecision::Rejected(Some("no".into()))
    );
}

/// An update made by a device holding `base`, after `edit`: what it would send.
fn crafted(base: &SyncDocument, edit: impl FnOnce(&yrs::Doc)) -> Vec<u8> {
    let doc = yrs::Doc::with_client_id(98);
    let update = yrs::Update::decode_v1(&base.snapshot()).unwrap();
    doc.transact_mut().apply_update(update).unwrap();
    edit(&doc);
    let vector = yrs::StateVector::decode_v1(&base.state_vector()).unwrap();
    let diff = doc.transact().encode_diff_v1(&vector);
    diff
}

fn assert_unchanged_after(doc: &SyncDocument, update: &[u8], rule: &str) {
    let before = doc.snapshot();
    match doc.apply_remote(update) {
        Err(Rejected::BreaksRule(why)) => assert!(why.contains(rule), "{why}"),
        other => panic!("expected a broken rule ({rule}), got {other:?}"),
    }
    assert_eq!(doc.snapshot(), before, "nothing applied");
}

#[test]
fn a_well_formed_update_that_rewrites_or_deletes_history_changes_nothing() {
    let doc = device("me", 1);
    doc.put_conversation(&conversation("c1"));
    doc.append_message(&message("m1", "c1", "what was said"));
    doc.add_call("call-1", "c1", "t1", "write_note", "{}");

    let rewrite = crafted(&doc, |d| {
        let mut txn = d.transact_mut();
        let forged = serde_json::to_string(&message("m1", "c1", "something else")).unwrap();
        txn.get_or_insert_map("messages").insert(&mut txn, "m1", forged);
    });
    assert_unchanged_after(&doc, &rewrite, "rewritten");

    let deletion = crafted(&doc, |d| {
        let mut txn = d.transact_mut();
        txn.get_or_insert_array("order/c1").remove(&mut txn, 0);
    });
    assert_unchanged_after(&doc, &deletion, "lost entries");

    let steal = crafted(&doc, |d| {
        let mut txn = d.transact_mut();
        let call = r#"{"conversationId":"c1","turnId":"t1","name":"write_note","arguments":"{}","owner":"attacker"}"#;
        txn.get_or_insert_map("calls").insert(&mut txn, "t1:call-1", call);
    });
    assert_unchanged_after(&doc, &steal, "rewritten");

    let wrong_key = crafted(&doc, |d| {
        let mut txn = d.transact_mut();
        let other = serde_json::to_string(&message("m9", "c1", "x")).unwrap();
        txn.get_or_insert_map("messages").insert(&mut txn, "m2", other);
    });
    assert_unchanged_after(&doc, &wrong_key, "holds the record of `m9`");

    let not_a_message = crafted(&doc, |d| {
        let mut txn = d.transact_mut();
        txn.get_or_insert_map("messages")
            .insert(&mut txn, "m3", "{\"id\":\"m3\"}");
    });
    assert_unchanged_after(&doc, &not_a_message, "`m3`");

    let stranger = crafted(&doc, |d| {
        let mut txn = d.transact_mut();
        txn.get_or_insert_map("apiKeys")
            .insert(&mut txn, "openai", "sk-…");
    });
    assert_unchanged_after(&doc, &stranger, "`apiKeys` is not part of the document");

    assert_eq!(ids(&doc, "c1"), ["m1"]);
}

#[test]
fn malformed_bytes_are_refused_and_change_nothing() {
    let doc = device("me", 1);
    doc.put_conversation(&conversation("c1"));
    doc.append_message(&message("m1", "c1", "kept"));
    let good = {
        let other = device("other", 2);
        other.apply_remote(&doc.snapshot()).unwrap();
        other.append_message(&message("m2", "c1", "new"));
        other.diff_for(&doc.state_vector()).unwrap()
    };
    let before = doc.snapshot();
    for bad in [&good[..good.len() / 2], &[0xff; 64][..]] {
        assert!(matches!(doc.apply_remote(bad), Err(Rejected::Malformed(_))));
        assert_eq!(doc.snapshot(), before);
    }
    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0xff;
    // A flipped byte may still decode as some update: then it must keep the rules.
    if doc.apply_remote(&flipped).is_err() {
        assert_eq!(doc.snapshot(), before);
    }
    assert_eq!(doc.messages("c1")[0].content, "kept");
    assert!(matches!(
        doc.diff_for(&[0xff, 0xff, 0xff]),
        Err(Rejected::Malformed(_))
    ));
}

/// Writing a record the document already holds, as it holds it, writes
/// nothing (no update for the other devices); a changed one is written; every
/// book's place is listed.
#[test]
fn the_same_record_again_writes_nothing_and_positions_are_listed() {
    let laptop = device("laptop", 1);
    laptop.put_conversation(&conversation("c1"));
    let before = laptop.state_vector();
    laptop.put_conversation(&conversation("c1"));
    assert_eq!(laptop.state_vector(), before, "nothing written");
    let mut renamed = conversation("c1");
    renamed.title = "Renamed".into();
    laptop.put_conversation(&renamed);
    assert_ne!(laptop.state_vector(), before);
    assert_eq!(laptop.conversations(), [renamed]);
    laptop.set_position("thursday", 31, 10.0);
    laptop.set_position("sunday", 2, 11.0);
    let mut pages: Vec<(String, u32)> = laptop
        .positions()
        .into_iter()
        .map(|(book, p)| (book, p.page))
        .collect();
    pages.sort();
    assert_eq!(pages, [("sunday".to_string(), 2), ("thursday".to_string(), 31)]);
}

#[test]
fn a_shared_book_reaches_another_device_and_a_bad_one_is_refused_both_ways() {
    let laptop = device("laptop", 1);
    let phone = device("phone", 2);
    laptop
        .share_book(
            "book-1a2b",
            "Thursday",
            Some("Chesterton"),
            "/books/thursday.lectern",
            5.0,
        )
        .unwrap();
    let before = phone.snapshot();
    let to_phone = laptop.diff_for(&phone.state_vector()).unwrap();
    let changes = phone.apply_remote(&to_phone).unwrap();
    assert_eq!(changes.books, ["book-1a2b"]);
    assert_ne!(phone.snapshot(), before);
    let books = phone.books();
    assert_eq!(books.len(), 1);
    let (id, book) = &books[0];
    assert_eq!(id, "book-1a2b");
    assert_eq!(book.bundle_url, "/books/thursday.lectern");
    assert_eq!(book.author.as_deref(), Some("Chesterton"));
    assert_eq!(book.device, "laptop");

    // Written here: refused before anything is written.
    let vector = laptop.state_vector();
    for (id, title, url, why) in [
        ("a b", "T", "/x", "not a book id"),
        ("book-2", " ", "/x", "needs a title"),
        ("book-2", "T", "javascript:alert(1)", "bundle URL"),
        ("book-2", "T", "//elsewhere.example/x", "bundle URL"),
    ] {
        let error = laptop.share_book(id, title, None, url, 6.0).unwrap_err();
        assert!(error.contains(why), "{error}");
    }
    assert_eq!(laptop.state_vector(), vector, "nothing written");

    // From another client of the room: refused, nothing applied.
    let hostile = crafted(&phone, |d| {
        let mut txn = d.transact_mut();
        let book = r#"{"title":"T","bundleUrl":"javascript:alert(1)","updatedAt":1,"device":"x"}"#;
        txn.get_or_insert_map("books").insert(&mut txn, "book-1a2b", book);
    });
    assert_unchanged_after(&phone, &hostile, "bundle URL");
    let deleted = crafted(&phone, |d| {
        let mut txn = d.transact_mut();
        txn.get_or_insert_map("books").remove(&mut txn, "book-1a2b");
    });
    assert_unchanged_after(&phone, &deleted, "books: `book-1a2b` was deleted");
}

#[test]
fn a_setting_reaches_another_device_and_a_secret_never_goes_in() {
    let laptop = device("laptop", 1);
    let phone = device("phone", 2);
    laptop
        .set_setting("reader.theme", serde_json::json!({ "dark": true }), 5.0)
        .unwrap();
    let changes = phone
        .apply_remote(&laptop.diff_for(&phone.state_vector()).unwrap())
        .unwrap();
    assert_eq!(changes.settings, ["reader.theme"]);
    let settings = phone.settings();
    assert_eq!(settings.len(), 1);
    assert_eq!(settings[0].1.value, serde_json::json!({ "dark": true }));
    assert_eq!(settings[0].1.device, "laptop");

    let vector = laptop.state_vector();
    for (key, why) in [
        ("openaiApiKey", "names a secret"),
        ("sync.TOKEN", "names a secret"),
        ("a b", "not a setting name"),
        ("", "not a setting name"),
    ] {
        let error = laptop.set_setting(key, serde_json::json!("x"), 6.0).unwrap_err();
        assert!(error.contains(why), "{key}: {error}");
    }
    assert_eq!(laptop.state_vector(), vector, "nothing written");

    let hostile = crafted(&phone, |d| {
        let mut txn = d.transact_mut();
        let setting = r#"{"value":"sk-live-123","updatedAt":1,"device":"x"}"#;
        txn.get_or_insert_map("settings")
            .insert(&mut txn, "apiKey", setting);
    });
    assert_unchanged_after(&phone, &hostile, "names a secret");
}
