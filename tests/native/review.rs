//! Review of headless runs: a run that ran a tool which is not read-only ends
//! `proposed`; one that only read ends `completed`; `reviewRun` accepts or
//! rejects it once, keeping the log; failed runs can be reviewed too.

use futures::executor::block_on;
use lectern::agent::HeadlessRequest;
use lectern::domain::{ReviewDecision, RunRecord, RunStatus};
use lectern::error::Error;
use lectern::events::EventSink;
use lectern::provider::scripted::ScriptedTurn;
use lectern::runtime::time::ManualClock;
use serde_json::json;

use crate::support::harness::{tools, TestAgent};

/// An agent (no conversation yet) with a read-only `read_notes` tool and a `save_note` tool.
fn agent(turns: Vec<ScriptedTurn>) -> TestAgent {
    TestAgent::builder(turns)
        .clock(ManualClock::new(1.0e12))
        .tool(tools::answering("read_notes", "Reads the notes", json!("done")).read_only())
        .tool(tools::answering("save_note", "Saves a note", json!("done")))
        .without_conversation()
        .build()
}

fn run(h: &TestAgent) -> RunRecord {
    let request = HeadlessRequest {
        conversation_id: None,
        instruction: "tidy the notes".into(),
        tools: None,
        max_iterations: Some(4),
        timeout_ms: 120_000,
    };
    block_on(
        h.agent
            .run_headless(request, Default::default(), &EventSink::none()),
    )
    .unwrap()
}

#[test]
fn a_run_that_only_read_is_completed_and_one_that_wrote_is_proposed() {
    let reader = agent(vec![
        ScriptedTurn::tools(&[("read_notes", "{}")]),
        ScriptedTurn::text("Nothing to do."),
    ]);
    assert_eq!(run(&reader).status, RunStatus::Completed);
    let quiet = agent(vec![ScriptedTurn::text("Nothing to do.")]);
    assert_eq!(run(&quiet).status, RunStatus::Completed);
    let writer = agent(vec![
        ScriptedTurn::tools(&[("save_note", "{}")]),
        ScriptedTurn::text("Saved."),
    ]);
    let proposed = run(&writer);
    assert_eq!(proposed.status, RunStatus::Proposed);
    assert_eq!(
        block_on(writer.agent.run(&proposed.run_id)).unwrap().status,
        RunStatus::Proposed,
        "as stored"
    );
}

#[test]
fn a_rejected_run_keeps_its_log_and_is_reviewed_once() {
    let writer = agent(vec![
        ScriptedTurn::tools(&[("save_note", "{}")]),
        ScriptedTurn::text("Saved."),
    ]);
    let proposed = run(&writer);
    let rejected = block_on(writer.agent.review_run(
        &proposed.run_id,
        ReviewDecision::Reject,
        Some("wrong note".into()),
    ))
    .unwrap();
    assert_eq!(rejected.status, RunStatus::Rejected);
    let stored = block_on(writer.agent.run(&proposed.run_id)).unwrap();
    assert_eq!(stored, rejected);
    let review = stored.review.unwrap();
    assert_eq!(
        (review.decision, review.note.as_deref(), review.at),
        (ReviewDecision::Reject, Some("wrong note"), 1.0e12)
    );
    assert_eq!(
        (stored.log.len(), stored.tool_calls.len()),
        (4, 1),
        "the log is kept"
    );
    let again = block_on(
        writer
            .agent
            .review_run(&proposed.run_id, ReviewDecision::Accept, None),
    )
    .unwrap_err();
    assert!(
        matches!(&again, Error::Config { .. }) && again.to_string().contains("already reviewed"),
        "{again}"
    );
}

#[test]
fn accepted_failed_and_unreviewable_runs() {
    let writer = agent(vec![
        ScriptedTurn::tools(&[("save_note", "{}")]),
        ScriptedTurn::text("Saved."),
    ]);
    let accepted = block_on(
        writer
            .agent
            .review_run(&run(&writer).run_id, ReviewDecision::Accept, None),
    )
    .unwrap();
    assert_eq!(accepted.status, RunStatus::Accepted);
    let failing = agent(vec![ScriptedTurn::error(Error::connection("down"))]);
    let failed = run(&failing);
    assert_eq!(failed.status, RunStatus::Failed);
    let reviewed = block_on(
        failing
            .agent
            .review_run(&failed.run_id, ReviewDecision::Reject, None),
    )
    .unwrap();
    assert_eq!(
        (reviewed.status, reviewed.review.is_some()),
        (RunStatus::Failed, true)
    );
    let reader = agent(vec![ScriptedTurn::text("Nothing to do.")]);
    let completed = run(&reader);
    let refused = block_on(
        reader
            .agent
            .review_run(&completed.run_id, ReviewDecision::Accept, None),
    )
    .unwrap_err();
    assert_eq!(refused.name(), "ConfigError");
    assert_eq!(
        block_on(reader.agent.review_run("nope", ReviewDecision::Accept, None))
            .unwrap_err()
            .name(),
        "NotFoundError"
    );
}
