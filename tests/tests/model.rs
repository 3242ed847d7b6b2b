//! The model (`lab_e2e::model`, written from what each design does, not
//! from its code) and the real servers agree, schedule by schedule: for
//! two copies of one order (and three, with at most two preemptions; and
//! two with a crash of any copy at any gate, followed by its retry), the
//! schedules the explorer could run on the real server and database are
//! the model's, and those that left more than one order are the same. `stateright` checks the model's
//! properties over every state it can reach. Two mutants of the safe
//! server (without its UNIQUE constraint; claiming by check-then-insert)
//! are caught by both, with the same shortest counterexample.

use std::collections::BTreeSet;

use explorer::{Crashes, Plan, Target};
use lab_core::OrderServer;
use lab_e2e::model::{DesignModel, ModelCrash, ModelDatabase, ModelDesign};
use lab_e2e::mutants::{SafeCheckThenInsert, SafeWithoutUnique};
use lab_e2e::{Backend, on_both_backends, spawn_server};
use locked_server::LockedServer;
use naive_server::NaiveServer;
use onetrip_server::OneTripServer;
use phased_server::PhasedServer;
use safe_server::SafeServer;
use stateright::{Checker, Model};
use transactional_server::TransactionalServer;

/// Schedules run at once per test: a few, because the tests of this
/// file run at once too. With eight each, two dozen tests kept about 180
/// schedules moving on two cores, and a release could outlast the
/// server's 10 s wait for its copy to settle.
const TEST_JOBS: usize = 4;

on_both_backends!(
    naive_breaks_in_the_same_schedules_on_the_model_and_the_server,
    locked_keeps_its_promise_in_the_same_schedules_on_the_model_and_the_server,
    safe_keeps_its_promise_in_the_same_schedules_on_the_model_and_the_server,
    transactional_keeps_its_promise_in_the_same_schedules_on_the_model_and_the_server,
    onetrip_keeps_its_promise_in_the_same_schedules_on_the_model_and_the_server,
    phased_keeps_its_promise_in_the_same_schedules_on_the_model_and_the_server,
    the_mutant_without_unique_is_caught_by_both_with_the_same_shortest_counterexample,
    the_mutant_that_checks_then_inserts_is_caught_by_both_with_the_same_shortest_counterexample,
    three_copies_within_two_preemptions_break_naive_and_no_other_design_on_both_sides,
    with_a_crash_anywhere_naive_and_locked_break_and_onetrip_and_transactional_do_not,
    with_one_answer_dropped_only_naive_breaks,
);

const PROMISE: &str = "at most one order, and every answer names it";

/// Explores `copies` copies on server `S` (three with the explorer's
/// bound of preemptions; with `crash`, a crash of one copy where it allows
/// and its client's retry) and compares every schedule with `design`'s model.
async fn agree<S: OrderServer>(backend: Backend, design: ModelDesign, copies: u8, crash: Crashes) {
    let server = spawn_server::<S>(backend).await;
    let target = Target::new(server.orders_url.clone());
    let plan = Plan {
        design: S::NAME.to_owned(),
        copies,
        crash,
        max_schedules: 10_000,
        jobs: TEST_JOBS,
        preemptions: (copies == 3).then_some(explorer::PREEMPTIONS_FOR_THREE),
    };
    let report = explorer::explore(&target, &plan)
        .await
        .expect("the exploration runs");
    let database = match backend {
        Backend::Sqlite => ModelDatabase::Sqlite,
        Backend::Postgres => ModelDatabase::Postgres,
    };
    let model = DesignModel {
        design,
        database,
        copies: plan.copies,
        crash: match plan.crash {
            Crashes::Never => ModelCrash::Never,
            Crashes::AnyGate => ModelCrash::AnyGate,
            Crashes::AnswerOnly => ModelCrash::AtTheAnswer,
        },
        preemptions: plan.preemptions,
    };

    let real: BTreeSet<String> = report.runs.iter().map(|run| run.schedule_text()).collect();
    let modelled: BTreeSet<String> = model.schedules().into_iter().map(|(s, _)| s).collect();
    assert_eq!(
        modelled.symmetric_difference(&real).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "schedules possible on one side only ({backend:?}, {} on the server, {} in the model)",
        real.len(),
        modelled.len()
    );
    let broke: BTreeSet<String> = report.broken().map(|run| run.schedule_text()).collect();
    assert_eq!(model.broken(), broke, "{backend:?}: {}", report.summary());
    println!(
        "{backend:?}: {} — the model agrees on all {} schedules",
        report.summary(),
        modelled.len()
    );

    // The locked design's lock lives in the process: a crash that holds
    // it after the order was written lets the next copy order again.
    let breaks = matches!(
        design,
        ModelDesign::Naive | ModelDesign::SafeWithoutUnique | ModelDesign::SafeCheckThenInsert
    ) || (crash == Crashes::AnyGate && design == ModelDesign::Locked);
    assert_eq!(!broke.is_empty(), breaks, "{}", report.summary());
    let shortest = report
        .shortest_counterexample()
        .map(|run| run.schedule_text());
    assert_eq!(model.shortest_counterexample(), shortest);
    let checker = model.checker().spawn_bfs().join();
    if breaks {
        checker.assert_any_discovery(PROMISE);
    } else {
        checker.assert_no_discovery(PROMISE);
    }
    checker.assert_no_discovery("no copy waits once every other has ended");
    checker.assert_no_discovery("no key left claimed without its answer once every copy has ended");
}

async fn naive_breaks_in_the_same_schedules_on_the_model_and_the_server(backend: Backend) {
    agree::<NaiveServer>(backend, ModelDesign::Naive, 2, Crashes::Never).await;
}

async fn locked_keeps_its_promise_in_the_same_schedules_on_the_model_and_the_server(
    backend: Backend,
) {
    agree::<LockedServer>(backend, ModelDesign::Locked, 2, Crashes::Never).await;
}

async fn safe_keeps_its_promise_in_the_same_schedules_on_the_model_and_the_server(
    backend: Backend,
) {
    agree::<SafeServer>(backend, ModelDesign::Safe, 2, Crashes::Never).await;
}

async fn transactional_keeps_its_promise_in_the_same_schedules_on_the_model_and_the_server(
    backend: Backend,
) {
    agree::<TransactionalServer>(backend, ModelDesign::Transactional, 2, Crashes::Never).await;
}

async fn onetrip_keeps_its_promise_in_the_same_schedules_on_the_model_and_the_server(
    backend: Backend,
) {
    agree::<OneTripServer>(backend, ModelDesign::OneTrip, 2, Crashes::Never).await;
}

async fn phased_keeps_its_promise_in_the_same_schedules_on_the_model_and_the_server(
    backend: Backend,
) {
    agree::<PhasedServer>(backend, ModelDesign::Phased, 2, Crashes::Never).await;
}

async fn the_mutant_without_unique_is_caught_by_both_with_the_same_shortest_counterexample(
    backend: Backend,
) {
    agree::<SafeWithoutUnique>(backend, ModelDesign::SafeWithoutUnique, 2, Crashes::Never).await;
}

async fn the_mutant_that_checks_then_inserts_is_caught_by_both_with_the_same_shortest_counterexample(
    backend: Backend,
) {
    agree::<SafeCheckThenInsert>(backend, ModelDesign::SafeCheckThenInsert, 2, Crashes::Never)
        .await;
}

async fn three_copies_within_two_preemptions_break_naive_and_no_other_design_on_both_sides(
    backend: Backend,
) {
    agree::<NaiveServer>(backend, ModelDesign::Naive, 3, Crashes::Never).await;
    agree::<LockedServer>(backend, ModelDesign::Locked, 3, Crashes::Never).await;
    agree::<SafeServer>(backend, ModelDesign::Safe, 3, Crashes::Never).await;
    agree::<TransactionalServer>(backend, ModelDesign::Transactional, 3, Crashes::Never).await;
    agree::<OneTripServer>(backend, ModelDesign::OneTrip, 3, Crashes::Never).await;
}

async fn with_a_crash_anywhere_naive_and_locked_break_and_onetrip_and_transactional_do_not(
    backend: Backend,
) {
    agree::<NaiveServer>(backend, ModelDesign::Naive, 2, Crashes::AnyGate).await;
    agree::<LockedServer>(backend, ModelDesign::Locked, 2, Crashes::AnyGate).await;
    agree::<OneTripServer>(backend, ModelDesign::OneTrip, 2, Crashes::AnyGate).await;
    // On PostgreSQL each statement of the transaction is a gate and a
    // crash may come at each: more than 20,000 schedules, minutes of run.
    if backend == Backend::Sqlite {
        agree::<TransactionalServer>(backend, ModelDesign::Transactional, 2, Crashes::AnyGate)
            .await;
    }
}

/// Safe is left out for time, not doubt: 3,258 schedules with a dropped
/// answer, which the model matched on both databases when measured
/// (docs/explorer.md), take half a minute each run.
async fn with_one_answer_dropped_only_naive_breaks(backend: Backend) {
    agree::<NaiveServer>(backend, ModelDesign::Naive, 2, Crashes::AnswerOnly).await;
    agree::<LockedServer>(backend, ModelDesign::Locked, 2, Crashes::AnswerOnly).await;
    agree::<OneTripServer>(backend, ModelDesign::OneTrip, 2, Crashes::AnswerOnly).await;
    // On PostgreSQL, 5,610 schedules (a gate per statement of the
    // transaction, 78 s); on SQLite, 156.
    if backend == Backend::Sqlite {
        agree::<TransactionalServer>(backend, ModelDesign::Transactional, 2, Crashes::AnswerOnly)
            .await;
    }
}
