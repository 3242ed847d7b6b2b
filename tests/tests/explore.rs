//! The explorer runs every schedule of two copies of one order on a real
//! server and database: Naive leaves two orders in some of them (and the
//! shortest such schedule replays exactly), and with a crash anywhere One
//! trip keeps one order while Locked does not. (`model.rs` compares naive,
//! locked, safe, transactional and one trip with the model, schedule by
//! schedule.)

use explorer::{Choice, Crashes, ExploreError, Plan, Target, run_schedule};
use lab_core::OrderServer;
use lab_e2e::{Backend, on_both_backends, spawn_server};
use lab_wire::{Gate, StepKind};
use locked_server::LockedServer;
use naive_server::NaiveServer;
use onetrip_server::OneTripServer;
use transactional_server::TransactionalServer;

/// Schedules run at once per test: a few, because the tests of this
/// file run at once too. With eight each, two dozen tests kept about 180
/// schedules moving on two cores, and a release could outlast the
/// server's 10 s wait for its copy to settle.
const TEST_JOBS: usize = 4;

on_both_backends!(
    naive_leaves_two_orders_in_some_schedules_and_the_shortest_replays_exactly,
    onetrip_keeps_one_order_with_a_crash_anywhere_and_the_retry,
);

async fn explore<S: OrderServer>(backend: Backend) -> (Target, explorer::Report) {
    explore_with::<S>(backend, false).await
}

/// Every schedule of two copies on server `S`; with `crash`, also every
/// crash of one copy at any gate, followed by its client's retry.
async fn explore_with<S: OrderServer>(backend: Backend, crash: bool) -> (Target, explorer::Report) {
    let server = spawn_server::<S>(backend).await;
    let target = Target::new(server.orders_url.clone());
    let plan = Plan {
        design: S::NAME.to_owned(),
        copies: 2,
        crash: if crash {
            Crashes::AnyGate
        } else {
            Crashes::Never
        },
        max_schedules: 2_000,
        jobs: TEST_JOBS,
        preemptions: None,
        reduce: false,
    };
    let report = explorer::explore(&target, &plan)
        .await
        .expect("the exploration runs");
    println!("{backend:?}: {}", report.summary());
    (target, report)
}

/// The steps each copy took, copies in order of arrival. Two copies that
/// move at once (a waiting copy let in by a crash, and the retry) report
/// in either order, so each copy's own story is what replays exactly; the
/// server's request numbers (in a `blocked` step) become copy numbers.
fn story(run: &explorer::ScheduleRun) -> Vec<Vec<StepKind>> {
    let mut requests: Vec<u64> = Vec::new();
    for step in &run.steps {
        if !requests.contains(&step.request) {
            requests.push(step.request);
        }
    }
    let copy_of = |request: u64| requests.iter().position(|&r| r == request).unwrap() as u64 + 1;
    requests
        .iter()
        .map(|&request| {
            run.steps
                .iter()
                .filter(|step| step.request == request)
                .map(|step| match step.kind {
                    StepKind::Blocked { on, by } => StepKind::Blocked {
                        on,
                        by: by.map(copy_of),
                    },
                    kind => kind,
                })
                .collect()
        })
        .collect()
}

async fn naive_leaves_two_orders_in_some_schedules_and_the_shortest_replays_exactly(
    backend: Backend,
) {
    let (target, report) = explore::<NaiveServer>(backend).await;
    let broken = report.broken().count();
    assert!(broken > 0, "{}", report.summary());
    assert!(
        broken < report.runs.len(),
        "running one copy first keeps one order"
    );
    // Every schedule is different, and each ran to its end.
    let mut schedules: Vec<&Vec<Choice>> = report.runs.iter().map(|run| &run.schedule).collect();
    schedules.dedup();
    assert_eq!(schedules.len(), report.runs.len());
    assert!(report.runs.iter().all(|run| run.answers.len() == 2));

    let shortest = report.shortest_counterexample().unwrap();
    // Copy 2 looked the key up before copy 1 saved its answer.
    let moved = |copy: u8, gate: Gate| {
        let found = shortest
            .moves
            .iter()
            .position(|m| m.choice == Choice::Release(copy) && m.gate == gate);
        found.unwrap_or_else(|| panic!("copy {copy} ran {gate:?}: {shortest:?}"))
    };
    assert!(
        moved(2, Gate::LookUp) < moved(1, Gate::SaveAnswer),
        "{}",
        shortest.schedule_text()
    );
    let again = run_schedule(&target, 2, &shortest.schedule, Crashes::Never)
        .await
        .expect("the schedule replays");
    assert_eq!(again.schedule, shortest.schedule);
    assert_eq!(again.moves, shortest.moves);
    assert_eq!(story(&again), story(shortest));
    assert_eq!(again.orders.len(), shortest.orders.len());
    assert!(again.broke_the_promise());
}

async fn onetrip_keeps_one_order_with_a_crash_anywhere_and_the_retry(backend: Backend) {
    let (_, report) = explore_with::<OneTripServer>(backend, true).await;
    let crashed = |run: &&explorer::ScheduleRun| {
        run.schedule
            .iter()
            .any(|choice| matches!(choice, Choice::Crash(_)))
    };
    assert!(report.runs.iter().filter(crashed).count() > report.runs.len() / 2);
    assert_eq!(report.broken().count(), 0, "{}", report.summary());
    // A copy that crashed got no answer; its retry was answered.
    for run in report.runs.iter().filter(crashed) {
        assert_eq!(run.answers.len(), 3, "{}", run.schedule_text());
        assert_eq!(run.answers.iter().filter(|a| a.status.is_none()).count(), 1);
    }
}

/// The in-process lock holds in one process until its holder dies: a
/// crash after the order is written lets the waiting copy in, and it finds
/// no answer. Every schedule with a crash anywhere, on SQLite.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn locked_leaves_two_orders_when_the_lock_holder_crashes_after_writing_the_order() {
    let (target, report) = explore_with::<LockedServer>(Backend::Sqlite, true).await;
    assert!(report.broken().count() > 0, "{}", report.summary());
    assert!(
        report
            .broken()
            .all(|run| run.schedule.contains(&Choice::Crash(1))
                || run.schedule.contains(&Choice::Crash(2))),
        "without a crash the lock keeps one order"
    );
    let shortest = report.shortest_counterexample().unwrap();
    let again = run_schedule(&target, 2, &shortest.schedule, Crashes::AnyGate)
        .await
        .expect("the schedule replays");
    assert_eq!(story(&again), story(shortest));
    assert_eq!(again.orders.len(), 2);
}

/// A crash drops a transaction that the other copy's claim waits for;
/// PostgreSQL lets go a moment later, when the dropped connection's
/// rollback arrives. Under load (eight schedules at once) that moment was
/// long enough for the crash to answer with the other copy still
/// `blocked`, by a holder it no longer named, and a prefix then did not
/// replay: four runs out of four of transactional with crashes stopped
/// with "copy 2 cannot move". The first 1,000 of its schedules (there are
/// more than 20,000) now all replay.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_postgres_transactional_with_a_crash_anywhere_replays_every_prefix_under_load() {
    let server = spawn_server::<TransactionalServer>(Backend::Postgres).await;
    let plan = Plan {
        design: TransactionalServer::NAME.to_owned(),
        copies: 2,
        crash: Crashes::AnyGate,
        max_schedules: 1_000,
        jobs: 8,
        preemptions: None,
        reduce: false,
    };
    let explored = explorer::explore(&Target::new(server.orders_url.clone()), &plan).await;
    assert!(
        matches!(explored, Err(ExploreError::TooMany(1_000))),
        "{:?}",
        explored.map(|report| report.summary())
    );
}
