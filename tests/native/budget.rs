//! Spend limits and usage that is never lost: `budget` per turn (and per
//! `send`), `budgetPeriod` per conversation, checked before each model call;
//! failed and aborted turns keep their usage; `usage(conversationId)` totals;
//! `deleteAllConversations` (which takes the totals with it).

use lectern::domain::SortedMap;

use futures::executor::block_on;
use lectern::agent::{AgentConfig, SendOptions};
use lectern::domain::{Budget, Role};
use lectern::error::Error;
use lectern::provider::scripted::ScriptedTurn;
use lectern::provider::{Price, PriceTable};
use lectern::runtime::time::{Clock, ManualClock};
use lectern::storage::StoreArchive;
use serde_json::json;

use crate::support::harness::{tools, TestAgent};

/// An agent over `turns` with `config` on `clock`, whose `lookup` tool answers "found".
fn harness(turns: Vec<ScriptedTurn>, config: AgentConfig, clock: ManualClock) -> TestAgent {
    TestAgent::builder(turns)
        .config(config)
        .clock(clock)
        .tool(tools::answering("lookup", "Looks something up", json!("found")))
        .build()
}

fn tokens(max_tokens: u64) -> Budget {
    Budget {
        max_tokens: Some(max_tokens),
        max_cost_usd: None,
    }
}

fn with_budget(budget: Budget, period: Budget) -> AgentConfig {
    AgentConfig {
        budget,
        budget_period: period,
        ..AgentConfig::default()
    }
}

fn clock() -> ManualClock {
    ManualClock::new(1.0e12)
}

#[test]
fn a_turn_stops_before_the_call_that_would_pass_its_budget_with_its_usage_and_whole_steps() {
    let h = harness(
        vec![
            ScriptedTurn::tools(&[("lookup", "{}")]).with_usage(400, 100),
            ScriptedTurn::text("never asked").with_usage(700, 10),
        ],
        with_budget(tokens(600), Budget::default()),
        clock(),
    );
    let failure = h.send_with("look it up", &SendOptions::default()).unwrap_err();
    let Error::BudgetExceeded {
        scope,
        limit,
        max,
        spent,
        next,
    } = &failure.error
    else {
        panic!("{:?}", failure.error)
    };
    assert_eq!(
        (scope.as_str(), limit.as_str(), *max, *spent),
        ("turn", "tokens", 600.0, 500.0)
    );
    assert!(*next > 100.0, "the next request's estimate: {next}");
    assert_eq!(h.model.requests().len(), 1, "the second call was never made");
    assert_eq!(
        (failure.usage.input_tokens, failure.usage.output_tokens),
        (400, 100)
    );
    assert_eq!((failure.steps, failure.tool_calls.len()), (1, 1));
    assert_eq!(
        h.roles(),
        [Role::User, Role::Assistant, Role::ToolResult],
        "the step is stored whole"
    );
    let totals = block_on(h.agent.usage(&h.conversation)).unwrap();
    assert_eq!(
        (totals.input_tokens, totals.output_tokens, totals.turns),
        (400, 100, 1)
    );
}

#[test]
fn a_send_budget_replaces_the_configured_one() {
    let h = harness(
        vec![
            ScriptedTurn::tools(&[("lookup", "{}")]).with_usage(400, 100),
            ScriptedTurn::text("done").with_usage(600, 10),
        ],
        with_budget(tokens(600), Budget::default()),
        clock(),
    );
    let mut options = SendOptions::default();
    options.overrides.budget = Some(tokens(5_000));
    let reply = h.send_with("look it up", &options).unwrap();
    assert_eq!((reply.text.as_str(), reply.usage.input_tokens), ("done", 1_000));
}

#[test]
fn a_conversation_budget_counts_every_turn_and_blocks_the_next_one_before_any_call() {
    let h = harness(
        vec![
            ScriptedTurn::text("one").with_usage(300, 50),
            ScriptedTurn::text("two").with_usage(500, 50),
            ScriptedTurn::text("three").with_usage(1, 1),
        ],
        with_budget(Budget::default(), tokens(1_000)),
        clock(),
    );
    h.send_with("first", &SendOptions::default()).unwrap();
    h.send_with("second", &SendOptions::default()).unwrap();
    let failure = h.send_with("third", &SendOptions::default()).unwrap_err();
    assert!(
        matches!(&failure.error, Error::BudgetExceeded { scope, spent, .. } if scope == "conversation" && *spent == 900.0),
        "{:?}",
        failure.error
    );
    assert_eq!((failure.steps, failure.usage.input_tokens), (0, 0));
    assert_eq!(h.model.requests().len(), 2);
    let totals = block_on(h.agent.usage(&h.conversation)).unwrap();
    assert_eq!(
        (totals.input_tokens, totals.output_tokens, totals.turns),
        (800, 100, 2)
    );
    // The user's message is kept: nothing of it is lost, and a larger budget can answer it.
    let last = h.messages().pop().unwrap();
    assert_eq!((last.role, last.content.as_str()), (Role::User, "third"));
}

/// The scripted model's price: $1,000 a million tokens, in and out.
fn priced() -> PriceTable {
    let price = Price {
        input_per_m_tok: 1_000.0,
        output_per_m_tok: 1_000.0,
        cached_input_per_m_tok: None,
    };
    PriceTable::new(SortedMap::from([("scripted".to_string(), price)]))
}

#[test]
fn cost_budgets_use_the_model_price() {
    let config = AgentConfig {
        prices: priced(),
        budget: Budget {
            max_cost_usd: Some(0.5),
            max_tokens: None,
        },
        ..AgentConfig::default()
    };
    let h = harness(
        vec![
            ScriptedTurn::tools(&[("lookup", "{}")]).with_usage(300, 100),
            ScriptedTurn::text("never").with_usage(1, 1),
        ],
        config,
        clock(),
    );
    let failure = h.send_with("look it up", &SendOptions::default()).unwrap_err();
    assert!(
        matches!(&failure.error, Error::BudgetExceeded { limit, max, .. } if limit == "costUsd" && *max == 0.5),
        "{:?}",
        failure.error
    );
    assert_eq!(failure.usage.cost_usd, Some(0.4));
    let totals = block_on(h.agent.usage(&h.conversation)).unwrap();
    assert_eq!(totals.cost_usd, Some(0.4));
}

#[test]
fn each_tool_call_record_keeps_the_cost_of_the_step_that_asked_for_it() {
    let config = AgentConfig {
        prices: priced(),
        ..AgentConfig::default()
    };
    let h = harness(
        vec![
            ScriptedTurn::tools(&[("lookup", "{}")]).with_usage(300, 100),
            ScriptedTurn::tools(&[("lookup", "{}")]).with_usage(100, 100),
            ScriptedTurn::text("found").with_usage(1, 1),
        ],
        config,
        clock(),
    );
    h.send("look it up twice").unwrap();
    let stored = block_on(h.agent.store().tool_calls(&h.conversation)).unwrap();
    let costs: Vec<Option<f64>> = stored.iter().map(|r| r.step_cost_usd).collect();
    assert_eq!(
        costs,
        [Some(0.4), Some(0.2)],
        "each record has its own step's cost, stored"
    );
}

#[test]
fn an_aborted_turn_keeps_its_estimated_usage_in_the_error_and_the_totals() {
    let clock = ManualClock::with_timers(0.0);
    let h = harness(
        vec![
            ScriptedTurn::text("one").with_usage(10, 2),
            ScriptedTurn::text("The story begins ").hanging(),
        ],
        AgentConfig::default(),
        clock.clone(),
    );
    h.send("hi").unwrap();
    let options = SendOptions::default();
    let cancel = options.cancel.clone();
    let send = h.sending("tell a story", &options);
    let aborter = async {
        clock.sleep(20).await;
        cancel.cancel();
    };
    let (outcome, ()) = clock.drive(async { futures::join!(send, aborter) });
    let failure = outcome.unwrap_err();
    assert_eq!(failure.error, Error::Aborted);
    assert!(failure.usage.estimated);
    assert!(failure.usage.input_tokens > 5, "{:?}", failure.usage);
    assert_eq!(failure.usage.output_tokens, 3, "\"The story begins\"");
    let totals = block_on(h.agent.usage(&h.conversation)).unwrap();
    assert_eq!(totals.input_tokens, 10 + failure.usage.input_tokens);
    assert_eq!(
        (totals.output_tokens, totals.turns, totals.estimated),
        (5, 2, true)
    );
}

#[test]
fn usage_of_an_unknown_conversation_is_not_found_and_deleting_clears_it() {
    let h = harness(
        vec![ScriptedTurn::text("a").with_usage(3, 4)],
        AgentConfig::default(),
        clock(),
    );
    assert_eq!(
        block_on(h.agent.usage("nope")).unwrap_err().name(),
        "NotFoundError"
    );
    let fresh = block_on(h.agent.usage(&h.conversation)).unwrap();
    assert_eq!((fresh.tokens(), fresh.turns), (0, 0));
    h.send_with("hi", &SendOptions::default()).unwrap();
    assert_eq!(block_on(h.agent.usage(&h.conversation)).unwrap().tokens(), 7);
    block_on(h.store.delete_conversation(&h.conversation)).unwrap();
    assert_eq!(
        block_on(h.agent.usage(&h.conversation)).unwrap_err().name(),
        "NotFoundError"
    );
}

#[test]
fn delete_all_conversations_waits_for_no_turn_and_keeps_nothing() {
    let clock = ManualClock::with_timers(0.0);
    let h = harness(
        vec![
            ScriptedTurn::text("a").with_usage(1, 1),
            ScriptedTurn::text("slow").hanging(),
        ],
        AgentConfig::default(),
        clock.clone(),
    );
    h.send_with("hi", &SendOptions::default()).unwrap();
    let options = SendOptions::default();
    let cancel = options.cancel.clone();
    let running = h.sending("go on", &options);
    let attempt = async {
        clock.sleep(10).await;
        let refused = h.agent.delete_all_conversations().await;
        cancel.cancel();
        refused
    };
    let (_, refused) = clock.drive(async { futures::join!(running, attempt) });
    let Err(Error::ConversationBusy { conversation_id, .. }) = refused else {
        panic!("{refused:?}")
    };
    assert_eq!(conversation_id, h.conversation);
    assert_eq!(h.messages().len(), 4, "nothing was deleted");
    block_on(h.agent.delete_all_conversations()).unwrap();
    assert!(block_on(h.agent.conversations()).unwrap().is_empty());
    assert_eq!(
        block_on(h.agent.usage(&h.conversation)).unwrap_err().name(),
        "NotFoundError"
    );
}

/// The estimated input of each request of a tool-then-answer turn, from a dry run.
fn dry_run_estimates() -> Vec<u64> {
    let turns = vec![
        ScriptedTurn::tools(&[("lookup", "{}")]),
        ScriptedTurn::text("done"),
    ];
    let h = harness(turns, AgentConfig::default(), ManualClock::new(1.0e12));
    h.send_with("look it up", &SendOptions::default()).unwrap();
    let empty = lectern::provider::ModelResponse::default();
    h.model
        .requests()
        .iter()
        .map(|r| lectern::agent::estimated_usage(r, &empty).input_tokens)
        .collect()
}

#[test]
fn the_budget_check_scales_the_estimate_by_what_the_provider_counted() {
    let estimates = dry_run_estimates();
    // The provider counts twice Lectern's estimate of the first request.
    let first = 2 * estimates[0];
    let spent = first + 5;
    // Room for the second request by Lectern's raw estimate, not by the model's count.
    let budget = tokens(spent + estimates[1] + estimates[1] / 2);
    let turns = vec![
        ScriptedTurn::tools(&[("lookup", "{}")]).with_usage(first, 5),
        ScriptedTurn::text("done").with_usage(1, 1),
    ];
    let h = harness(
        turns,
        with_budget(budget, Budget::default()),
        ManualClock::new(1.0e12),
    );
    let failure = h.send_with("look it up", &SendOptions::default()).unwrap_err();
    match failure.error {
        Error::BudgetExceeded {
            next, spent: before, ..
        } => {
            assert_eq!(before, spent as f64);
            assert_eq!(
                next,
                (2 * estimates[1]) as f64,
                "the next request in the model's count"
            );
        }
        other => panic!("expected BudgetExceeded, got {other:?}"),
    }
    assert_eq!(h.model.requests().len(), 1);
}
